package redis

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// Every script the package makes is in preloaded, once: a script left out
// would cost a round trip more on its first use on each Redis server.
func TestEveryScriptIsPreloaded(t *testing.T) {
	files, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	fset := token.NewFileSet()
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewScript" {
					made++
				}
			}
			return true
		})
	}
	distinct := make(map[string]bool)
	for _, s := range preloaded {
		distinct[s.Hash()] = true
	}
	if made != len(preloaded) || len(distinct) != len(preloaded) {
		t.Errorf("the package makes %d scripts and preloaded lists %d, %d of them distinct: "+
			"list every script once in preloaded (preload.go)", made, len(preloaded), len(distinct))
	}
}
