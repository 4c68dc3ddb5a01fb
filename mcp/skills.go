package mcp

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The Skills extension (SEP-2640): a server serves Agent Skills as resources,
// one resource per file, and lists them with skills/list and skills/get.

// ExtensionSkills identifies the Skills extension in the extensions map of a
// server's capabilities. Its settings object may hold "directoryRead": true
// (SkillsDirectoryRead); the extension defines no client capability.
const ExtensionSkills = "io.modelcontextprotocol/skills"

// SkillsDirectoryRead is the setting of the Skills extension by which a
// server declares that it answers resources/directory/read.
const SkillsDirectoryRead = "directoryRead"

// Methods of the Skills extension.
const (
	MethodSkillsList             = "skills/list"              // client → server
	MethodSkillsGet              = "skills/get"               // client → server
	MethodResourcesDirectoryRead = "resources/directory/read" // client → server, with directoryRead
)

// IsSkillsExtensionMethod reports whether method belongs to the Skills
// extension: skills/list, skills/get or resources/directory/read.
func IsSkillsExtensionMethod(method string) bool {
	switch method {
	case MethodSkillsList, MethodSkillsGet, MethodResourcesDirectoryRead:
		return true
	}
	return false
}

// Skill file names and MIME types the extension names.
const (
	// SkillFile is the file at the root of every skill: YAML frontmatter
	// (name, description, ...) followed by markdown instructions.
	SkillFile = "SKILL.md"
	// MIMEMarkdown is the MIME type of a SKILL.md resource.
	MIMEMarkdown = "text/markdown"
	// MIMEDirectory is the MIME type of a directory resource.
	MIMEDirectory = "inode/directory"
)

// Skill limits: a host must accept a skill up to both, and a server should
// not serve one over either.
const (
	MaxSkillResources = 512              // entries in a skill's resources, SKILL.md included
	MaxSkillSize      = 16 * 1024 * 1024 // bytes, the sum of the entries' sizes
)

// SkillResource is one file of a skill, with the digest and size of its raw
// bytes.
type SkillResource struct {
	// URI is the file's resource URI.
	URI string `json:"uri"`
	// Digest is "sha256:" and the 64 lowercase hex digits of the SHA-256 of
	// the file's raw bytes.
	Digest string `json:"digest"`
	// Size is the length of the file's raw bytes.
	Size int64 `json:"size"`
}

// SkillResources is a skill's "resources": the complete list of its files
// (SKILL.md included), or, for a skill whose content is generated so that no
// stable digests exist, the string "dynamic". A nil SkillResources is
// dynamic (DynamicSkill); a list, even an empty one, is non-nil.
type SkillResources []SkillResource

// DynamicSkill is the resources of a skill whose files are generated: it
// encodes as "dynamic".
var DynamicSkill SkillResources

// skillResourcesDynamic is the wire form of a dynamic skill's resources.
const skillResourcesDynamic = "dynamic"

// Dynamic reports whether the skill publishes no file list ("dynamic").
func (r SkillResources) Dynamic() bool { return r == nil }

// MarshalJSONTo encodes the list as an array, or nil as "dynamic".
func (r *SkillResources) MarshalJSONTo(enc *jsontext.Encoder) error {
	if *r == nil {
		return enc.WriteToken(jsontext.String(skillResourcesDynamic))
	}
	return json.MarshalEncode(enc, []SkillResource(*r))
}

// UnmarshalJSONFrom decodes an array of files (into a non-nil list) or the
// string "dynamic" (into nil); any other value is an error, as a host must
// not load such an entry.
func (r *SkillResources) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if tok.String() != skillResourcesDynamic {
			return fmt.Errorf("a skill's resources must be an array or \"dynamic\", not the string %q", tok.String())
		}
		*r = nil
		return nil
	case '[':
		list := []SkillResource{}
		if err := json.UnmarshalDecode(dec, &list); err != nil {
			return err
		}
		*r = list
		return nil
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return fmt.Errorf("a skill's resources must be an array or \"dynamic\", not %s", v)
}

// Skill is a skill's entry in skills/list and skills/get: where its SKILL.md
// is, its frontmatter and its files.
type Skill struct {
	// URI is the resource URI of the skill's SKILL.md; its last path segment
	// before SKILL.md is the skill's name.
	URI string `json:"uri"`
	// Frontmatter is SKILL.md's YAML frontmatter as a JSON object, every field
	// the author wrote; "name" and "description" are always there.
	Frontmatter JSONObject `json:"frontmatter"`
	// Resources are the skill's files; nil (DynamicSkill) encodes as
	// "dynamic".
	Resources SkillResources `json:"resources"`
}

// Name returns the skill's frontmatter name, or "" when it is not a string.
func (s *Skill) Name() string { return s.frontmatterString("name") }

// Description returns the skill's frontmatter description, or "" when it is
// not a string.
func (s *Skill) Description() string { return s.frontmatterString("description") }

// frontmatterString returns the frontmatter member key when it is a string.
func (s *Skill) frontmatterString(key string) string {
	var v string
	if raw, ok := s.Frontmatter[key]; !ok || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// Root returns the URI of the skill's directory: URI without "/SKILL.md".
// It returns "" when URI does not end in "/SKILL.md".
func (s *Skill) Root() string {
	const suffix = "/" + SkillFile
	if len(s.URI) <= len(suffix) || s.URI[len(s.URI)-len(suffix):] != suffix {
		return ""
	}
	return s.URI[:len(s.URI)-len(suffix)]
}

// File returns the listed file with the given URI.
func (s *Skill) File(uri string) (SkillResource, bool) {
	for _, f := range s.Resources {
		if f.URI == uri {
			return f, true
		}
	}
	return SkillResource{}, false
}

// ListSkillsParams are the params of skills/list.
type ListSkillsParams = PaginatedParams

// ListSkillsResult answers skills/list. Cache is required in the modern era.
type ListSkillsResult struct {
	Result
	Cache      *CacheableResult `json:",inline"`
	NextCursor string           `json:"nextCursor,omitempty"`
	Skills     []Skill          `json:"skills"`
}

// GetSkillParams are the params of skills/get.
type GetSkillParams struct {
	RequestParams
	// URI is the resource URI of the skill's SKILL.md.
	URI string `json:"uri"`
}

// GetSkillResult answers skills/get. Cache is required in the modern era.
type GetSkillResult struct {
	Result
	Cache *CacheableResult `json:",inline"`
	Skill Skill            `json:"skill"`
}

// ReadResourceDirectoryParams are the params of resources/directory/read.
type ReadResourceDirectoryParams struct {
	RequestParams
	// URI is the directory resource to read.
	URI string `json:"uri"`
	// Cursor is an opaque cursor from a previous result's NextCursor.
	Cursor string `json:"cursor,omitempty"`
}

// ReadResourceDirectoryResult answers resources/directory/read: the direct
// children of the directory, subdirectories with MIMEType MIMEDirectory.
type ReadResourceDirectoryResult struct {
	Result
	NextCursor string     `json:"nextCursor,omitempty"`
	Resources  []Resource `json:"resources"`
}
