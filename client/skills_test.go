package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
)

// skillMD is the SKILL.md the entry below describes.
const skillMD = "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nBody.\n"

// digestOf returns the wire digest of s.
func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillEntry is the entry of a skill whose SKILL.md is skillMD and whose
// FORMS.md is forms.
func skillEntry(forms string) *mcp.Skill {
	return &mcp.Skill{
		URI:         "skill://pdf-processing/SKILL.md",
		Frontmatter: mcp.JSONObject{"name": []byte(`"pdf-processing"`), "description": []byte(`"Extract PDF text"`)},
		Resources: mcp.SkillResources{
			{URI: "skill://pdf-processing/SKILL.md", Digest: digestOf(skillMD), Size: int64(len(skillMD))},
			{URI: "skill://pdf-processing/FORMS.md", Digest: digestOf(forms), Size: int64(len(forms))},
		},
	}
}

// serveFiles answers resources/read with the text files.
func serveFiles(files map[string]string) handlerFunc {
	return func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.ReadResourceParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		text, ok := files[p.URI]
		if !ok {
			return nil, mcp.ResourceNotFoundError(mcp.Version20260728, p.URI)
		}
		return &mcp.ReadResourceResult{Result: mcp.Result{ResultType: mcp.ResultComplete},
			Cache:    &mcp.CacheableResult{CacheScope: mcp.CachePrivate},
			Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: p.URI, Text: text}}}, nil
	}
}

// TestHostsMustVerifySkillFilesOnRead: a file whose size, digest or
// frontmatter differs from the entry, or that the entry does not list, is a
// verification failure and its content is not returned; a matching one is.
func TestHostsMustVerifySkillFilesOnRead(t *testing.T) {
	const forms = "Forms.\n"
	cases := []struct {
		name  string
		uri   string
		files map[string]string
		entry *mcp.Skill
	}{
		{"digest", "skill://pdf-processing/SKILL.md", map[string]string{"skill://pdf-processing/SKILL.md": skillMD[:len(skillMD)-6] + "Evil.\n"}, skillEntry(forms)},
		{"size", "skill://pdf-processing/SKILL.md", map[string]string{"skill://pdf-processing/SKILL.md": skillMD + "extra"}, skillEntry(forms)},
		{"frontmatter", "skill://pdf-processing/SKILL.md", map[string]string{"skill://pdf-processing/SKILL.md": skillMD}, func() *mcp.Skill {
			e := skillEntry(forms)
			e.Frontmatter["description"] = []byte(`"Exfiltrate credentials"`)
			return e
		}()},
		{"unlisted", "skill://pdf-processing/OTHER.md", map[string]string{"skill://pdf-processing/OTHER.md": forms}, skillEntry(forms)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, p := connect(t, nil, map[string]handlerFunc{mcp.MethodServerDiscover: skillsDiscover, mcp.MethodResourcesRead: serveFiles(c.files)})
			data, err := s.ReadSkillFile(testCtx(t), c.entry, c.uri)
			if !errors.Is(err, ErrSkillVerification) || data != nil {
				t.Fatalf("ReadSkillFile = %q, %v; want no content and ErrSkillVerification", data, err)
			}
			if c.name == "unlisted" && len(p.requests(mcp.MethodResourcesRead)) != 0 {
				t.Error("an unlisted file was fetched; it must be refused before any read")
			}
		})
	}
	t.Run("match", func(t *testing.T) {
		s, _ := connect(t, nil, map[string]handlerFunc{mcp.MethodServerDiscover: skillsDiscover, mcp.MethodResourcesRead: serveFiles(map[string]string{
			"skill://pdf-processing/SKILL.md": skillMD, "skill://pdf-processing/FORMS.md": forms})})
		for _, uri := range []string{"skill://pdf-processing/SKILL.md", "skill://pdf-processing/FORMS.md"} {
			if _, err := s.ReadSkillFile(testCtx(t), skillEntry(forms), uri); err != nil {
				t.Errorf("ReadSkillFile %s: %v", uri, err)
			}
		}
	})
}

// TestClientsSendSkillsRequestsOnlyAfterTheServersDeclaration: without the
// extension declared, the skills calls fail before anything is sent, and
// resources/directory/read also needs directoryRead.
func TestClientsSendSkillsRequestsOnlyAfterTheServersDeclaration(t *testing.T) {
	s, p := connect(t, nil, nil) // the fake declares tools only
	if _, err := s.ListSkills(testCtx(t), nil); !errors.Is(err, ErrNoSkills) {
		t.Errorf("ListSkills: %v, want ErrNoSkills", err)
	}
	if _, err := s.GetSkill(testCtx(t), "skill://x/SKILL.md"); !errors.Is(err, ErrNoSkills) {
		t.Errorf("GetSkill: %v, want ErrNoSkills", err)
	}
	s2, p2 := connect(t, nil, map[string]handlerFunc{mcp.MethodServerDiscover: skillsDiscover})
	if _, err := s2.ReadResourceDirectory(testCtx(t), &mcp.ReadResourceDirectoryParams{URI: "skill://x"}); !errors.Is(err, ErrNoSkills) {
		t.Errorf("ReadResourceDirectory without directoryRead: %v, want ErrNoSkills", err)
	}
	for _, m := range []string{mcp.MethodSkillsList, mcp.MethodSkillsGet, mcp.MethodResourcesDirectoryRead} {
		if len(p.requests(m))+len(p2.requests(m)) != 0 {
			t.Errorf("%s was sent to a server that did not declare it", m)
		}
	}
}

// skillsDiscover answers server/discover declaring resources and the skills
// extension without directoryRead.
func skillsDiscover(ctx context.Context, req *jsonrpc.Request) (any, error) {
	res, err := discoverResult(mcp.Version20260728)(ctx, req)
	if err != nil {
		return nil, err
	}
	d := res.(*mcp.DiscoverResult)
	d.Capabilities = mcp.ServerCapabilities{Resources: &mcp.ResourcesCapability{},
		Extensions: map[string]mcp.JSONObject{mcp.ExtensionSkills: {}}}
	return d, nil
}

// TestDynamicSkillFilesStayInsideTheSkill: a dynamic skill's entry lists no
// files, so a file is its only when its URI lies under the skill's root; a
// URI that climbs out with "." or ".." segments (spelled out or
// percent-encoded) is refused before any read, and one inside is read.
func TestDynamicSkillFilesStayInsideTheSkill(t *testing.T) {
	const secret = "Another skill's file.\n"
	files := map[string]string{"skill://pdf-processing/SKILL.md": skillMD, "skill://pdf-processing/refs/FORMS.md": "Forms.\n"}
	escapes := []string{
		"skill://pdf-processing/../billing/SECRET.md",
		"skill://pdf-processing/refs/../../billing/SECRET.md",
		"skill://pdf-processing/%2e%2e/billing/SECRET.md",
		"skill://pdf-processing/./../billing/SECRET.md",
	}
	for _, uri := range escapes {
		files[uri] = secret
	}
	s, p := connect(t, nil, map[string]handlerFunc{mcp.MethodServerDiscover: skillsDiscover, mcp.MethodResourcesRead: serveFiles(files)})
	entry := skillEntry("")
	entry.Resources = mcp.DynamicSkill
	for _, uri := range escapes {
		if data, err := s.ReadSkillFile(testCtx(t), entry, uri); !errors.Is(err, ErrSkillVerification) || data != nil {
			t.Errorf("ReadSkillFile %s = %q, %v; want no content and ErrSkillVerification", uri, data, err)
		}
	}
	if n := len(p.requests(mcp.MethodResourcesRead)); n != 0 {
		t.Errorf("%d reads of files outside the skill were sent; they must be refused before any read", n)
	}
	if data, err := s.ReadSkillFile(testCtx(t), entry, "skill://pdf-processing/refs/FORMS.md"); err != nil || string(data) != "Forms.\n" {
		t.Errorf("ReadSkillFile of a file inside the dynamic skill = %q, %v", data, err)
	}
}
