// Package apiv1 holds the wire types of autocut's v1 HTTP API: the job as
// the API shows it, the options and patch a client sends, the list,
// preview and envelope answers, the job states, and the error codes with
// the one table that gives each code its HTTP status.
//
// It is a leaf: it imports only the standard library, so that the Go
// client (package client) and anything else that speaks the API can use
// the same types without linking the server (River, SQLite, PostgreSQL,
// object storage). The server packages (jobs, httpapi) import it too, so
// the JSON a server writes and the JSON a client reads are one declaration.
//
// Sentinel errors such as ErrNotFound carry their code: the server wraps
// them, the HTTP adapter answers with the code's status, and on the client
// errors.Is(err, apiv1.ErrNotFound) holds for the *Error decoded from that
// answer.
package apiv1
