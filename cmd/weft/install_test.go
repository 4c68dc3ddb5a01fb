package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallable checks that go install can build weft once its modules
// are tagged: the go command refuses to install a module whose go.mod has
// replace directives, so the workspace's go.work holds them instead.
func TestInstallable(t *testing.T) {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "replace") {
			t.Errorf("go.mod:%d: %q: go install refuses a module with replace directives; put the replacement in ../../go.work", i+1, line)
		}
	}
}

// TestOutsideModule builds the README's server snippet in a module outside
// the repository, pointed at the clone by a replace directive as the
// README's "Installing" section says. It works offline: the dependencies
// come from the module cache that building this test filled.
func TestOutsideModule(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	code := serverSnippet(t)
	dir := t.TempDir()
	gomod := "module example.com/echo\n\ngo 1.25.0\n\nrequire github.com/weftmcp/weft v0.0.0\n\nreplace github.com/weftmcp/weft => " + root + "\n"
	for name, data := range map[string]string{"go.mod": gomod, "main.go": code} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command(goCmd, "build", "-o", filepath.Join(dir, "echo"), ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the README's snippet in a module of its own, with a replace directive pointing at %s: %v\n%s", root, err, out)
	}
}
