package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// openAPIDoc is the OpenAPI 3.1 description of the v1 API.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the embedded OpenAPI 3.1 document.
func OpenAPI() []byte { return append([]byte(nil), openAPIDoc...) }

func (s *server) openapi(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPIDoc)
}
