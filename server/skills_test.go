package server

import (
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/weftmcp/weft/mcp"
)

// TestAddSkillsRefusesSkillsTheSpecForbids: a SKILL.md without frontmatter,
// without a name or description, with a name breaking the naming rules or
// differing from its directory, and a folder without any SKILL.md, are each
// refused with an error naming the problem, and nothing is registered.
func TestAddSkillsRefusesSkillsTheSpecForbids(t *testing.T) {
	md := func(fm string) *fstest.MapFile { return &fstest.MapFile{Data: []byte("---\n" + fm + "\n---\nbody\n")} }
	cases := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no SKILL.md", fstest.MapFS{"a/README.md": {Data: []byte("hi")}}, "no SKILL.md"},
		{"no frontmatter", fstest.MapFS{"a/SKILL.md": {Data: []byte("# just markdown\n")}}, "frontmatter"},
		{"no description", fstest.MapFS{"a/SKILL.md": md("name: a")}, "name and description"},
		{"bad name", fstest.MapFS{"Bad--Name/SKILL.md": md("name: Bad--Name\ndescription: d")}, "naming rules"},
		{"name differs from directory", fstest.MapFS{"a/SKILL.md": md("name: b\ndescription: d")}, `directory name "a"`},
		{"not a mapping", fstest.MapFS{"a/SKILL.md": md("- a\n- b")}, "mapping"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
			err := s.AddSkills(c.fsys, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("AddSkills: %v, want an error mentioning %q", err, c.want)
			}
			if s.serves(featureSkills) || s.resources.len() != 0 {
				t.Error("a refused skill was registered")
			}
		})
	}
}

// TestNestedSkillsArePublishedFlat: a skill inside another is listed on its
// own, and its files are also files of the enclosing skill.
func TestNestedSkillsArePublishedFlat(t *testing.T) {
	s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	err := s.AddSkills(fstest.MapFS{
		"SKILL.md":       {Data: []byte("---\nname: outer\ndescription: o\n---\n")},
		"inner/SKILL.md": {Data: []byte("---\nname: inner\ndescription: i\n---\n")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	outer, ok1 := s.skills.skills.get("skill://outer/SKILL.md")
	inner, ok2 := s.skills.skills.get("skill://outer/inner/SKILL.md")
	if !ok1 || !ok2 {
		t.Fatalf("listed outer %v, inner %v; want both", ok1, ok2)
	}
	if _, ok := outer.File("skill://outer/inner/SKILL.md"); !ok || len(outer.Resources) != 2 || len(inner.Resources) != 1 {
		t.Errorf("outer files %+v, inner files %+v", outer.Resources, inner.Resources)
	}
	if r, ok := s.resources.get("skill://outer/inner/SKILL.md"); !ok || r.resource.Name != "inner" {
		t.Errorf("the nested SKILL.md resource is %+v; want it named after its own frontmatter", r)
	}
}

// TestAddSkillsAgainReplacesTheSkillsFiles: a skill added again at the same
// URI is replaced whole: a file the new version no longer has is neither a
// resource nor a directory's child, and its directory is gone, so that
// nothing is served that the skill's entry does not list.
func TestAddSkillsAgainReplacesTheSkillsFiles(t *testing.T) {
	s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	md := &fstest.MapFile{Data: []byte("---\nname: refunds\ndescription: r\n---\n")}
	if err := s.AddSkills(fstest.MapFS{"refunds/SKILL.md": md, "refunds/old/notes.md": {Data: []byte("old")}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.AddSkills(fstest.MapFS{"refunds/SKILL.md": md, "refunds/new.md": {Data: []byte("new")}}, nil); err != nil {
		t.Fatal(err)
	}
	entry, _ := s.skills.skills.get("skill://refunds/SKILL.md")
	if len(entry.Resources) != 2 || entry.Resources[0].URI != "skill://refunds/SKILL.md" || entry.Resources[1].URI != "skill://refunds/new.md" {
		t.Errorf("the entry lists %+v; want SKILL.md and new.md", entry.Resources)
	}
	if _, ok := s.resources.get("skill://refunds/old/notes.md"); ok {
		t.Error("the file the skill no longer has is still a resource")
	}
	var names []string
	kids, _ := s.skills.children("skill://refunds")
	for _, k := range kids {
		names = append(names, k.Name)
	}
	if strings.Join(names, ",") != "SKILL.md,new.md" {
		t.Errorf("the skill's directory lists %v; want SKILL.md and new.md", names)
	}
	if _, ok := s.skills.children("skill://refunds/old"); ok {
		t.Error("the directory the skill no longer has is still a directory resource")
	}
}

// TestSkillFileURIsEscapeTheirNames: a file name with characters a URI
// cannot hold as they are (a space, "#", "?", "%", non-ASCII) is
// percent-encoded in its URI, so that the URI's path is the file's path
// and nothing of the name reads as a fragment or a query; the directory
// lists the file under its own name.
func TestSkillFileURIsEscapeTheirNames(t *testing.T) {
	s := New(mcp.Implementation{Name: "t", Version: "1"}, nil)
	const name = "notes #1?v=2 100% ü.md"
	err := s.AddSkills(fstest.MapFS{
		"refunds/SKILL.md":        {Data: []byte("---\nname: refunds\ndescription: r\n---\n")},
		"refunds/ref dir/" + name: {Data: []byte("notes")},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	entry, _ := s.skills.skills.get("skill://refunds/SKILL.md")
	if len(entry.Resources) != 2 {
		t.Fatalf("the entry lists %+v", entry.Resources)
	}
	uri := entry.Resources[1].URI
	u, err := url.Parse(uri)
	if err != nil || u.Fragment != "" || u.RawQuery != "" || u.Host != "refunds" || u.Path != "/ref dir/"+name {
		t.Fatalf("the file's URI %q parses as %+v, %v; want the path /ref dir/%s", uri, u, err, name)
	}
	if _, ok := s.resources.get(uri); !ok {
		t.Errorf("the listed URI %q is not a resource", uri)
	}
	kids, ok := s.skills.children(uri[:strings.LastIndex(uri, "/")])
	if !ok || len(kids) != 1 || kids[0].Name != name || kids[0].URI != uri {
		t.Errorf("the file's directory lists %+v; want %q at %q", kids, name, uri)
	}
	root, _ := s.skills.children("skill://refunds")
	if len(root) != 2 || root[1].Name != "ref dir" || root[1].MIMEType != mcp.MIMEDirectory {
		t.Errorf("the skill's root lists %+v; want SKILL.md and the directory \"ref dir\"", root)
	}
}
