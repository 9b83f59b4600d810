package apiv1

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"slices"
	"strconv"
	"testing"
)

// declared reads errors.go: the ErrorCode constants (name -> value) and,
// for each sentinel variable made with NewError, the constant it uses.
func declared(t *testing.T) (consts map[string]ErrorCode, sentinels map[string]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts, sentinels = map[string]ErrorCode{}, map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			v, ok := s.(*ast.ValueSpec)
			if !ok || len(v.Values) != len(v.Names) {
				continue
			}
			for i, n := range v.Names {
				switch x := v.Values[i].(type) {
				case *ast.BasicLit:
					if id, ok := v.Type.(*ast.Ident); ok && id.Name == "ErrorCode" {
						s, _ := strconv.Unquote(x.Value)
						consts[n.Name] = ErrorCode(s)
					}
				case *ast.CallExpr:
					if fn, ok := x.Fun.(*ast.Ident); ok && fn.Name == "NewError" {
						sentinels[n.Name] = x.Args[0].(*ast.Ident).Name
					}
				}
			}
		}
	}
	return consts, sentinels
}

// TestCodeTable checks that every declared code is in the table once,
// with a status, and has exactly one sentinel; and the table nothing else.
func TestCodeTable(t *testing.T) {
	consts, sentinels := declared(t)
	all := Codes(InResponse | InJob)
	if len(consts) != len(all) {
		t.Errorf("%d ErrorCode constants, %d codes in the table", len(consts), len(all))
	}
	for name, c := range consts {
		if n := len(slices.DeleteFunc(slices.Clone(all), func(x ErrorCode) bool { return x != c })); n != 1 {
			t.Errorf("%s (%q) is %d times in the table", name, c, n)
		}
		if st := c.HTTPStatus(); st < 400 || st > 599 {
			t.Errorf("%s: status %d", c, st)
		}
		var users []string
		for v, cn := range sentinels {
			if cn == name {
				users = append(users, v)
			}
		}
		if len(users) != 1 {
			t.Errorf("%s has sentinels %v, want one", name, users)
		}
	}
	for _, c := range Codes(InJob) {
		if !c.IsJobCode() {
			t.Errorf("%s listed for jobs but IsJobCode false", c)
		}
	}
	if ErrorCode("teapot").HTTPStatus() != http.StatusInternalServerError || ErrorCode("teapot").IsJobCode() {
		t.Error("an unknown code is not treated as internal")
	}
	// Codes returns a fresh slice.
	Codes(InResponse)[0] = "changed"
	if Codes(InResponse)[0] == "changed" {
		t.Error("Codes returns shared storage")
	}
}

// TestErrorMatching checks sentinels server-side (identity, codes through
// wrapping) and *Error client-side (matching by code).
func TestErrorMatching(t *testing.T) {
	wrapped := fmt.Errorf("job x: %w", ErrNotFound)
	if !errors.Is(wrapped, ErrNotFound) || errors.Is(wrapped, ErrRouteNotFound) {
		t.Error("sentinel identity through wrapping")
	}
	other := NewError(CodeNotFound, "unknown timeline kind")
	if errors.Is(other, ErrNotFound) || errors.Is(ErrNotFound, other) {
		t.Error("two sentinels of one code are one error")
	}
	if c, ok := CodeOf(fmt.Errorf("a: %w", fmt.Errorf("b: %w", ErrFileTooLarge))); !ok || c != CodeFileTooLarge {
		t.Errorf("CodeOf = %q %v", c, ok)
	}
	if _, ok := CodeOf(errors.New("plain")); ok {
		t.Error("CodeOf found a code in a plain error")
	}
	// What a client decodes from an answer.
	var err error = &Error{Status: 404, Code: CodeNotFound, Message: "job not found: job_x"}
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrOutputExpired) {
		t.Error("*Error does not match by code")
	}
	if c, ok := CodeOf(fmt.Errorf("client: %w", err)); !ok || c != CodeNotFound {
		t.Errorf("CodeOf(*Error) = %q %v", c, ok)
	}
	failed := &Error{Code: CodeRenderFailed, Message: "ffmpeg exited 1"}
	if !errors.Is(failed, ErrRenderFailed) || failed.Error() != "autocut: job failed: render_failed: ffmpeg exited 1" {
		t.Errorf("job failure %q", failed.Error())
	}
}
