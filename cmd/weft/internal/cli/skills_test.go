package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport/streamable"
)

// skillsURL serves fsys as skills over Streamable HTTP on loopback until
// the test ends, and returns the endpoint.
func skillsURL(t *testing.T, fsys fstest.MapFS) string {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "skills", Version: "1"}, nil)
	if err := s.AddSkills(fsys, nil); err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(s, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Shutdown(context.Background())
	})
	return ts.URL + "/mcp"
}

// TestSkillsCommandListsAndFetchesVerifiedFiles: weft skills URL lists the
// skills; weft skills URL NAME --out DIR writes every file of the skill,
// byte for byte, at its path below the skill's root.
func TestSkillsCommandListsAndFetchesVerifiedFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"refunds/SKILL.md":             {Data: []byte("---\nname: refunds\ndescription: Handle refunds\n---\nBody\n")},
		"refunds/templates/email.md":   {Data: []byte("Dear customer,\n")},
		"refunds/assets/logo.bin":      {Data: []byte{0xff, 0, 1}},
		"git-workflow/SKILL.md":        {Data: []byte("---\nname: git-workflow\ndescription: Branch names\n---\n")},
		"git-workflow/docs/COMMITS.md": {Data: []byte("One line.\n")},
	}
	url := skillsURL(t, fsys)

	r := runWeft(t, "", false, "skills", url)
	code, stdout, stderr := r.code, r.stdout, r.stderr
	if code != ExitOK || !hasRow(stdout, "refunds", "3", "skill://refunds/SKILL.md", "Handle refunds") || !hasRow(stdout, "git-workflow", "2", "skill://git-workflow/SKILL.md", "Branch names") {
		t.Fatalf("weft skills: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}

	dir := t.TempDir()
	r = runWeft(t, "", false, "skills", url, "refunds", "--out", dir)
	code, stderr = r.code, r.stderr
	if code != ExitOK {
		t.Fatalf("weft skills refunds --out: exit %d: %s", code, stderr)
	}
	for path, f := range fsys {
		rel, ok := strings.CutPrefix(path, "refunds/")
		if !ok {
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s = %q, %v; want the served bytes", rel, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
		t.Error("a file of another skill was fetched")
	}

	if r := runWeft(t, "", false, "skills", url, "nosuch", "--out", dir); r.code != ExitUsage || !strings.Contains(r.stderr, `no skill named "nosuch"`) {
		t.Errorf("an unknown skill: exit %d, %s", r.code, r.stderr)
	}
}

// hasRow reports whether the table out has a row of exactly these cells.
func hasRow(out string, cells ...string) bool {
	for line := range strings.Lines(out) {
		if slices.Equal(strings.Fields(line), strings.Fields(strings.Join(cells, " "))) {
			return true
		}
	}
	return false
}
