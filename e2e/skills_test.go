package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"testing/fstest"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
	"github.com/weftmcp/weft/transport/streamable"
)

// skillsFS is the skills the skills server serves: one skill with
// subdirectories and a file that is not UTF-8 (served as a blob).
var skillsFS = fstest.MapFS{
	"refunds/SKILL.md": {Data: []byte("---\nname: refunds\ndescription: Handle refund requests\nlicense: Apache-2.0\n" +
		"metadata:\n  version: 2\n  tags: [billing, support]\n---\n\nUse `templates/email.md`.\n")},
	"refunds/templates/email.md":        {Data: []byte("Dear customer,\n")},
	"refunds/templates/regional/eu.md":  {Data: []byte("EU rules apply.\n")},
	"refunds/assets/logo.bin":           {Data: []byte{0xff, 0x00, 0xfe, 0x80}},
	"refunds/references/POLICY.md":      {Data: []byte("Refund within 30 days.\n")},
	"refunds/references/deep/CASES.txt": {Data: []byte("case 1\n")},
}

// skillsRoot is the URI of the served skill's directory.
const skillsRoot = "skill://acme/billing/refunds"

// newSkillsServer returns a server serving skillsFS under acme/billing.
func newSkillsServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "weft-e2e-skills", Version: "1.0.0"}, nil)
	if err := s.AddSkills(skillsFS, &server.SkillsOptions{Prefix: "acme/billing"}); err != nil {
		panic("e2e: the skills fixture is broken: " + err.Error())
	}
	return s
}

// dialSkills starts the skills server on the transport and returns the
// client's end of the connection.
func dialSkills(t *testing.T, kind string) jsonrpc.Stream {
	t.Helper()
	switch kind {
	case "pipe":
		clientEnd, serverEnd := transport.Pipe()
		ss, err := newSkillsServer().Connect(context.Background(), serverEnd, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return clientEnd
	case "http":
		h := streamable.NewHandler(newSkillsServer(), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ts.Close()
			h.Shutdown(context.Background())
		})
		return streamable.NewClient(ts.URL+"/mcp", nil)
	case "stdio":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), stdioServerEnv+"=skills", "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
		stream, err := transport.NewCommand(cmd)
		if err != nil {
			t.Fatalf("starting the stdio skills server: %v", err)
		}
		t.Cleanup(func() { stream.Close() })
		return stream
	}
	t.Fatalf("unknown transport %q", kind)
	return nil
}

// TestSkillsOverEveryTransportAndEra serves a skill from an fs.FS and reads
// it back with weft's client: the extension is declared beside resources,
// skills/list and skills/get give the same complete manifest with the
// digests and sizes of the files' bytes, every file reads back verified,
// resources/directory/read walks the tree, and unknown URIs get -32602.
func TestSkillsOverEveryTransportAndEra(t *testing.T) {
	forEachOn(t, []string{"pipe", "stdio", "http"}, []string{mcp.Version20251125, mcp.Version20260728}, func(t *testing.T, e env) {
		ctx := ctxFor(t)
		s, err := client.New(clientInfo, &client.Options{ProtocolVersion: e.version}).Connect(ctx, dialSkills(t, e.transport))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })

		caps := s.ServerCapabilities()
		if caps.Resources == nil || string(caps.Extensions[mcp.ExtensionSkills][mcp.SkillsDirectoryRead]) != "true" {
			t.Fatalf("capabilities %+v: want resources and %s with directoryRead", caps, mcp.ExtensionSkills)
		}

		page, err := s.ListSkills(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (page.Cache != nil) != (e.version == mcp.Version20260728) {
			t.Errorf("skills/list cache hints %+v at %s: want them on 2026-07-28 only", page.Cache, e.version)
		}
		if len(page.Skills) != 1 {
			t.Fatalf("skills/list gave %d skills, want 1", len(page.Skills))
		}
		listed := page.Skills[0]
		if listed.URI != skillsRoot+"/SKILL.md" || listed.Name() != "refunds" || listed.Description() != "Handle refund requests" {
			t.Errorf("entry uri %s name %q description %q", listed.URI, listed.Name(), listed.Description())
		}
		if got := string(listed.Frontmatter["metadata"]); got != `{"tags":["billing","support"],"version":2}` {
			t.Errorf("frontmatter metadata %s: want the YAML mapping verbatim as JSON", got)
		}
		if len(listed.Resources) != len(skillsFS) {
			t.Errorf("the entry lists %d files, want all %d", len(listed.Resources), len(skillsFS))
		}
		for path, f := range skillsFS {
			uri := skillsRoot + "/" + path[len("refunds/"):]
			entry, ok := listed.File(uri)
			sum := sha256.Sum256(f.Data)
			if !ok || entry.Size != int64(len(f.Data)) || entry.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Errorf("entry of %s = %+v (listed %v), want the size and digest of its bytes", uri, entry, ok)
				continue
			}
			data, err := s.ReadSkillFile(ctx, &listed, uri)
			if err != nil || !bytes.Equal(data, f.Data) {
				t.Errorf("ReadSkillFile %s = %q, %v; want the file's bytes", uri, data, err)
			}
		}

		got, err := s.GetSkill(ctx, listed.URI)
		if err != nil {
			t.Fatal(err)
		}
		if got.URI != listed.URI || len(got.Resources) != len(listed.Resources) {
			t.Errorf("skills/get gave %+v, want the listed entry", got)
		}
		var rpcErr *jsonrpc.Error
		if _, err := s.GetSkill(ctx, skillsRoot+"-nope/SKILL.md"); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("skills/get of an unknown skill: %v, want -32602", err)
		}

		dir, err := s.ReadResourceDirectory(ctx, &mcp.ReadResourceDirectoryParams{URI: skillsRoot})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range dir.Resources {
			names = append(names, r.Name+"|"+r.MIMEType)
		}
		want := []string{"SKILL.md|text/markdown", "assets|inode/directory", "references|inode/directory", "templates|inode/directory"}
		if len(names) != len(want) {
			t.Fatalf("children of %s: %v, want %v", skillsRoot, names, want)
		}
		for i := range want {
			if names[i] != want[i] {
				t.Errorf("children of %s: %v, want %v", skillsRoot, names, want)
				break
			}
		}
		sub, err := s.ReadResourceDirectory(ctx, &mcp.ReadResourceDirectoryParams{URI: skillsRoot + "/templates"})
		if err != nil || len(sub.Resources) != 2 || sub.Resources[1].URI != skillsRoot+"/templates/regional" {
			t.Errorf("children of templates: %+v, %v", sub, err)
		}
		if _, err := s.ReadResourceDirectory(ctx, &mcp.ReadResourceDirectoryParams{URI: listed.URI}); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("resources/directory/read of a file: %v, want -32602", err)
		}
	})
}
