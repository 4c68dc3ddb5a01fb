package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"

	"github.com/weftmcp/weft/internal/frontmatter"
	"github.com/weftmcp/weft/mcp"
)

// ErrSkillVerification is returned (wrapped) by ReadSkillFile when a skill
// file does not match the skill's entry: its size or digest differs, a
// SKILL.md's frontmatter differs from the entry's, or the file is not listed
// in the entry. The content must not be used; GetSkill refreshes the entry
// (which changes what the user approved).
var ErrSkillVerification = errors.New("skill verification failed")

// ErrNoSkills is returned (wrapped) by the skills calls when the server did
// not declare the Skills extension (io.modelcontextprotocol/skills), or, for
// ReadResourceDirectory, its directoryRead setting.
var ErrNoSkills = errors.New("the server does not declare the skills extension")

// requireSkills returns an error unless the server declared the Skills
// extension, and, when directoryRead is set, its directoryRead setting.
func (s *Session) requireSkills(method string, directoryRead bool) error {
	settings, ok := s.ServerCapabilities().Extensions[mcp.ExtensionSkills]
	if !ok {
		return fmt.Errorf("client: %s: %w (%s)", method, ErrNoSkills, mcp.ExtensionSkills)
	}
	if directoryRead && strings.TrimSpace(string(settings[mcp.SkillsDirectoryRead])) != "true" {
		return fmt.Errorf("client: %s: %w with %s: true", method, ErrNoSkills, mcp.SkillsDirectoryRead)
	}
	return nil
}

// ListSkills returns one page of the server's skills (skills/list); params
// may be nil for the first page. Skills iterates over every page. An entry
// is a complete manifest: reading a file of it needs no GetSkill. Listing
// fetches no skill file.
func (s *Session) ListSkills(ctx context.Context, params *mcp.ListSkillsParams, opts ...CallOption) (*mcp.ListSkillsResult, error) {
	if err := s.requireSkills(mcp.MethodSkillsList, false); err != nil {
		return nil, err
	}
	var res mcp.ListSkillsResult
	if err := call(ctx, s, mcp.MethodSkillsList, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// Skills iterates over every skill the server lists, following nextCursor
// from page to page (skills/list). An error ends the iteration. A listing
// may be partial: GetSkill still answers for a skill it leaves out.
func (s *Session) Skills(ctx context.Context, opts ...CallOption) iter.Seq2[*mcp.Skill, error] {
	return paginate(mcp.MethodSkillsList, func(cursor string) ([]mcp.Skill, string, error) {
		res, err := s.ListSkills(ctx, &mcp.ListSkillsParams{Cursor: cursor}, opts...)
		if err != nil {
			return nil, "", err
		}
		return res.Skills, res.NextCursor, nil
	})
}

// GetSkill returns the current entry of the skill whose SKILL.md is at uri
// (skills/get). A URI the server serves no skill at is a *jsonrpc.Error with
// code -32602.
func (s *Session) GetSkill(ctx context.Context, uri string, opts ...CallOption) (*mcp.Skill, error) {
	if err := s.requireSkills(mcp.MethodSkillsGet, false); err != nil {
		return nil, err
	}
	var res mcp.GetSkillResult
	if err := call(ctx, s, mcp.MethodSkillsGet, &mcp.GetSkillParams{URI: uri}, &res, opts); err != nil {
		return nil, err
	}
	return &res.Skill, nil
}

// ReadResourceDirectory lists the direct children of a directory resource,
// such as a skill's root or one of its subdirectories
// (resources/directory/read); subdirectories have MIME type
// mcp.MIMEDirectory. It needs the server's directoryRead setting. What it
// lists does not extend a skill's entry: a file found here but not in the
// entry needs GetSkill first.
func (s *Session) ReadResourceDirectory(ctx context.Context, params *mcp.ReadResourceDirectoryParams, opts ...CallOption) (*mcp.ReadResourceDirectoryResult, error) {
	if err := s.requireSkills(mcp.MethodResourcesDirectoryRead, true); err != nil {
		return nil, err
	}
	var res mcp.ReadResourceDirectoryResult
	if err := call(ctx, s, mcp.MethodResourcesDirectoryRead, params, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// ReadSkillFile reads one file of a skill (resources/read) and verifies it
// against the skill's entry before returning its raw bytes: the file must
// be listed in the entry, and its size and SHA-256 digest must match; for
// the skill's SKILL.md, the frontmatter must also equal the entry's, field
// by field. Any difference is an error wrapping ErrSkillVerification, and
// the content is not returned. For a dynamic skill, whose entry lists no
// files, any file under the skill's root may be read and only the
// frontmatter is checked.
//
// Reading the SKILL.md is loading the skill: a host calls ReadSkillFile
// when the skill is used, never ahead of need.
func (s *Session) ReadSkillFile(ctx context.Context, skill *mcp.Skill, uri string, opts ...CallOption) ([]byte, error) {
	root := skill.Root()
	if root == "" {
		return nil, fmt.Errorf("client: reading %s: %w: the skill's uri %q does not end in /%s", uri, ErrSkillVerification, skill.URI, mcp.SkillFile)
	}
	listed, ok := skill.File(uri)
	switch {
	case !skill.Resources.Dynamic() && !ok:
		return nil, fmt.Errorf("client: reading %s: %w: the file is not listed in the entry of %s; refresh the entry with GetSkill", uri, ErrSkillVerification, skill.URI)
	case skill.Resources.Dynamic() && uri != skill.URI && !underRoot(root, uri):
		return nil, fmt.Errorf("client: reading %s: %w: the file is outside the skill %s", uri, ErrSkillVerification, root)
	}
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}, opts...)
	if err != nil {
		return nil, err
	}
	data, err := rawContents(res.Contents, uri)
	if err != nil {
		return nil, fmt.Errorf("client: reading %s: %w", uri, err)
	}
	if !skill.Resources.Dynamic() {
		if int64(len(data)) != listed.Size {
			return nil, fmt.Errorf("client: reading %s: %w: %d bytes where the entry says %d", uri, ErrSkillVerification, len(data), listed.Size)
		}
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != listed.Digest {
			return nil, fmt.Errorf("client: reading %s: %w: digest %s where the entry says %s", uri, ErrSkillVerification, got, listed.Digest)
		}
	}
	if uri == skill.URI {
		fm, _, err := frontmatter.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("client: reading %s: %w: %v", uri, ErrSkillVerification, err)
		}
		if !frontmatter.Equal(fm, skill.Frontmatter) {
			return nil, fmt.Errorf("client: reading %s: %w: the file's frontmatter differs from the entry's", uri, ErrSkillVerification)
		}
	}
	return data, nil
}

// underRoot reports whether uri names a file under the skill root: it
// starts with root and "/", and none of the segments after that is "." or
// ".." (as written or percent-encoded), which would climb out of the root.
func underRoot(root, uri string) bool {
	rel, ok := strings.CutPrefix(uri, root+"/")
	if !ok {
		return false
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if s, err := url.PathUnescape(seg); err != nil || s == "." || s == ".." {
			return false
		}
	}
	return true
}

// rawContents returns the raw bytes of the contents item for uri (or the
// only item): a text's UTF-8 bytes or a blob's decoded bytes.
func rawContents(contents mcp.ResourceContentsList, uri string) ([]byte, error) {
	var found mcp.ResourceContents
	for _, c := range contents {
		switch c := c.(type) {
		case *mcp.TextResourceContents:
			if c.URI == uri || len(contents) == 1 {
				found = c
			}
		case *mcp.BlobResourceContents:
			if c.URI == uri || len(contents) == 1 {
				found = c
			}
		}
	}
	switch c := found.(type) {
	case *mcp.TextResourceContents:
		return []byte(c.Text), nil
	case *mcp.BlobResourceContents:
		return c.Blob, nil
	}
	return nil, fmt.Errorf("the server returned no contents for %s", uri)
}
