package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/weftmcp/weft/internal/frontmatter"
	"github.com/weftmcp/weft/mcp"
)

// SkillsOptions configure AddSkills.
type SkillsOptions struct {
	// Prefix is the organizational prefix of the skills' URIs: with
	// "acme/billing", the skill in directory refunds is served at
	// skill://acme/billing/refunds/SKILL.md. Empty means none
	// (skill://refunds/SKILL.md). Its first segment is the URI authority.
	Prefix string
}

// validSkillName reports whether name follows the Agent Skills naming rules 1 to 64
// lowercase letters, digits and hyphens, no hyphen first, last or doubled.
func validSkillName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' ||
		strings.Contains(name, "--") {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// skillSet holds the registered skills and the directory tree of their files.
type skillSet struct {
	mu     sync.RWMutex
	skills registry[*mcp.Skill] // by SKILL.md URI
	// files maps each skill's SKILL.md URI to the resources of its files.
	files map[string][]*mcp.Resource
	// dirs maps each directory URI (no trailing slash) to its direct
	// children, in name order.
	dirs map[string][]mcp.Resource
}

// AddSkills serves every skill in fsys (a directory, os.DirFS, or files
// embedded with embed.FS): each directory holding a SKILL.md is a skill,
// named by its frontmatter, which must equal the directory's name (for a
// SKILL.md at the root of fsys, the name gives the skill's last URI
// segment). Every file is read once: it becomes a resource under
// skill://<prefix>/<skill path>/<file> served from memory, and its SHA-256
// digest and size go into the skill's entry of skills/list and skills/get.
// The server then declares the io.modelcontextprotocol/skills extension,
// with directoryRead, beside the resources capability.
//
// AddSkills returns an error, and registers nothing, when fsys holds no
// SKILL.md, when a SKILL.md has no frontmatter with a name and description,
// when a name breaks the Agent Skills naming rules or differs from its
// directory, or when a skill exceeds mcp.MaxSkillResources files or
// mcp.MaxSkillSize bytes. A skill already served at the same URI is
// replaced whole: the files it had and the new version lacks are served no
// more.
func (s *Server) AddSkills(fsys fs.FS, opts *SkillsOptions) error {
	prefix := ""
	if opts != nil {
		prefix = strings.Trim(opts.Prefix, "/")
	}
	files, err := readSkillFiles(fsys)
	if err != nil {
		return err
	}
	var roots []string // directories holding a SKILL.md
	for p := range files {
		if path.Base(p) == mcp.SkillFile {
			roots = append(roots, path.Dir(p))
		}
	}
	if len(roots) == 0 {
		return fmt.Errorf("server: AddSkills: no %s found; a skill is a directory with a %s at its root", mcp.SkillFile, mcp.SkillFile)
	}
	slices.SortFunc(roots, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == ".":
			return -1
		case b == ".":
			return 1
		}
		return strings.Compare(a, b)
	})
	type built struct {
		skill     *mcp.Skill
		resources []*mcp.Resource
		contents  []mcp.ResourceContents
	}
	// A SKILL.md at the root of fsys makes the root a skill named by its
	// frontmatter: the skills nested below it have its name in their path.
	nested := prefix
	var all []built
	for _, root := range roots {
		p := prefix
		if root != "." {
			p = nested
		}
		sk, err := buildSkill(files, root, p)
		if err != nil {
			return err
		}
		if root == "." {
			nested = strings.TrimPrefix(sk.entry.Root(), "skill://")
		}
		b := built{skill: sk.entry}
		for _, f := range sk.files {
			b.resources = append(b.resources, f.resource)
			b.contents = append(b.contents, f.contents)
		}
		all = append(all, b)
	}
	for _, b := range all {
		for i, r := range b.resources {
			c := b.contents[i]
			s.AddResource(r, func(context.Context, *Request, string, map[string]string) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{c}}, nil
			})
		}
		if stale := s.skills.add(b.skill, b.resources); len(stale) > 0 {
			s.RemoveResources(stale...)
		}
	}
	return nil
}

// skillFile is one file of a skill, ready to serve.
type skillFile struct {
	resource *mcp.Resource
	contents mcp.ResourceContents
}

// builtSkill is a skill's entry and its files.
type builtSkill struct {
	entry *mcp.Skill
	files []skillFile
}

// readSkillFiles reads every regular file of fsys, by slash-separated path.
func readSkillFiles(fsys fs.FS) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files[p] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("server: AddSkills: reading the skills: %w", err)
	}
	return files, nil
}

// buildSkill makes the entry and resources of the skill whose SKILL.md is in
// directory root of files.
func buildSkill(files map[string][]byte, root, prefix string) (*builtSkill, error) {
	mdPath := path.Join(root, mcp.SkillFile)
	fm, _, err := frontmatter.Parse(files[mdPath])
	if err != nil {
		return nil, fmt.Errorf("server: AddSkills: %s: %w", mdPath, err)
	}
	entry := &mcp.Skill{Frontmatter: mcp.JSONObject(fm)}
	name, desc := entry.Name(), entry.Description()
	if name == "" || desc == "" {
		return nil, fmt.Errorf("server: AddSkills: %s: the frontmatter needs a string name and description", mdPath)
	}
	if !validSkillName(name) {
		return nil, fmt.Errorf("server: AddSkills: %s: the name %q breaks the Agent Skills naming rules (1-64 lowercase letters, digits and hyphens, no hyphen first, last or doubled)", mdPath, name)
	}
	skillPath := root
	switch {
	case root == ".":
		skillPath = name
	case path.Base(root) != name:
		return nil, fmt.Errorf("server: AddSkills: %s: the name %q must equal the skill's directory name %q", mdPath, name, path.Base(root))
	}
	if prefix != "" {
		skillPath = prefix + "/" + skillPath
	}
	rootURI := "skill://" + skillPath
	entry.URI = rootURI + "/" + mcp.SkillFile
	entry.Resources = mcp.SkillResources{}

	var paths []string
	for p := range files {
		if root == "." || strings.HasPrefix(p, root+"/") {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	built := &builtSkill{entry: entry}
	var total int64
	for _, p := range paths {
		rel := p
		if root != "." {
			rel = strings.TrimPrefix(p, root+"/")
		}
		data := files[p]
		uri := rootURI + "/" + escapePath(rel)
		sum := sha256.Sum256(data)
		size := int64(len(data))
		total += size
		entry.Resources = append(entry.Resources, mcp.SkillResource{URI: uri, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: size})
		res := &mcp.Resource{URI: uri, Name: rel, MIMEType: skillMIMEType(rel, data), Size: &size}
		if rel == mcp.SkillFile {
			res.Name, res.Description = name, desc
		}
		built.files = append(built.files, skillFile{resource: res, contents: skillContents(uri, res.MIMEType, data)})
	}
	if n := len(entry.Resources); n > mcp.MaxSkillResources {
		return nil, fmt.Errorf("server: AddSkills: the skill %s has %d files, over the limit of %d every host accepts; split it", entry.URI, n, mcp.MaxSkillResources)
	}
	if total > mcp.MaxSkillSize {
		return nil, fmt.Errorf("server: AddSkills: the skill %s holds %d bytes, over the limit of %d every host accepts; make it smaller", entry.URI, total, mcp.MaxSkillSize)
	}
	return built, nil
}

// escapePath percent-encodes each segment of the slash-separated path p
// for a URI's path, so that no character of a file name (a space, "#",
// "?", "%") reads as anything but the name.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// lastSegment returns the directory of uri and the unescaped name of its
// last path segment.
func lastSegment(uri string) (dir, name string) {
	dir, name = path.Split(uri)
	if n, err := url.PathUnescape(name); err == nil {
		name = n
	}
	return strings.TrimSuffix(dir, "/"), name
}

// skillMIMEType returns the MIME type of a skill file: text/markdown for
// markdown, the type of the file extension where one is known, else
// text/plain for UTF-8 text and application/octet-stream for other bytes.
func skillMIMEType(name string, data []byte) string {
	ext := path.Ext(name)
	if ext == ".md" || ext == ".markdown" {
		return mcp.MIMEMarkdown
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// skillContents returns a file's contents as text when its bytes are UTF-8
// (so the text's UTF-8 bytes are exactly the digested bytes), else as a
// blob.
func skillContents(uri, mimeType string, data []byte) mcp.ResourceContents {
	if utf8.Valid(data) {
		return &mcp.TextResourceContents{URI: uri, MIMEType: mimeType, Text: string(data)}
	}
	return &mcp.BlobResourceContents{URI: uri, MIMEType: mimeType, Blob: data}
}

// add registers a skill's entry and the directories of its files (files
// holds the resource of each). A skill already at its URI is replaced
// whole: the directories are made again from every skill's files, and add
// returns the URIs of the files the replaced skill had that no skill has
// now, for the caller to stop serving.
func (ss *skillSet) add(sk *mcp.Skill, files []*mcp.Resource) (stale []string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.skills.put(sk.URI, sk)
	if ss.files == nil {
		ss.files, ss.dirs = map[string][]*mcp.Resource{}, map[string][]mcp.Resource{}
	}
	old, replaced := ss.files[sk.URI]
	ss.files[sk.URI] = files
	if !replaced {
		ss.addFiles(sk, files)
		return nil
	}
	ss.dirs = map[string][]mcp.Resource{}
	served := map[string]bool{}
	for _, each := range ss.skills.all() {
		ss.addFiles(each, ss.files[each.URI])
		for _, f := range ss.files[each.URI] {
			served[f.URI] = true
		}
	}
	for _, f := range old {
		if !served[f.URI] {
			stale = append(stale, f.URI)
		}
	}
	return stale
}

// addFiles records the skill's root directory, and each of its files in
// its directory.
func (ss *skillSet) addFiles(sk *mcp.Skill, files []*mcp.Resource) {
	root := sk.Root()
	ss.addDir(root)
	for _, f := range files {
		dir, name := lastSegment(f.URI)
		ss.addDirs(root, dir)
		child := *f
		child.Name, child.Description = name, ""
		ss.addChild(dir, child)
	}
}

// addDirs records dir and every directory between it and root (which is
// recorded), parents first.
func (ss *skillSet) addDirs(root, dir string) {
	if dir == root || !strings.HasPrefix(dir, root+"/") {
		return
	}
	ss.addDirs(root, path.Dir(dir))
	ss.addDir(dir)
}

// addDir records directory uri, and links it from its parent when the
// parent is a recorded directory.
func (ss *skillSet) addDir(uri string) {
	if _, ok := ss.dirs[uri]; ok {
		return
	}
	ss.dirs[uri] = []mcp.Resource{}
	parent, name := lastSegment(uri)
	if _, ok := ss.dirs[parent]; ok {
		ss.addChild(parent, mcp.Resource{URI: uri, Name: name, MIMEType: mcp.MIMEDirectory})
	}
}

// addChild adds (or replaces) a child of directory dir, keeping name order.
func (ss *skillSet) addChild(dir string, child mcp.Resource) {
	kids := ss.dirs[dir]
	i, found := slices.BinarySearchFunc(kids, child.URI, func(r mcp.Resource, uri string) int { return strings.Compare(r.URI, uri) })
	if found {
		kids[i] = child
		return
	}
	ss.dirs[dir] = slices.Insert(kids, i, child)
}

// children returns the direct children of directory uri.
func (ss *skillSet) children(uri string) ([]mcp.Resource, bool) {
	ss.mu.RLock()
	defer ss.mu.RUnlock()
	kids, ok := ss.dirs[uri]
	return slices.Clone(kids), ok
}

// listSkills answers skills/list, in registration order, a page at a time.
func (s *Server) listSkills(_ context.Context, r *Request, p *mcp.ListSkillsParams) (result, error) {
	after, err := s.decodeCursor(mcp.MethodSkillsList, p.Cursor)
	if err != nil {
		return nil, err
	}
	skills, last, more := s.skills.skills.page(after, s.pageSize)
	res := &mcp.ListSkillsResult{Skills: make([]mcp.Skill, len(skills))}
	for i, sk := range skills {
		res.Skills[i] = *sk
	}
	if more {
		res.NextCursor = s.encodeCursor(mcp.MethodSkillsList, last)
	}
	if r.modern {
		res.Cache = s.listCache(false)
	}
	return res, nil
}

// getSkill answers skills/get: the entry of the skill whose SKILL.md is at
// the URI, or -32602.
func (s *Server) getSkill(_ context.Context, r *Request, p *mcp.GetSkillParams) (result, error) {
	if p.URI == "" {
		return nil, invalidParams("skills/get needs the uri of a skill's %s", mcp.SkillFile)
	}
	sk, ok := s.skills.skills.get(p.URI)
	if !ok {
		return nil, invalidParams("No skill is served at %s; skills/list names the skills this server serves", p.URI)
	}
	res := &mcp.GetSkillResult{Skill: *sk}
	if r.modern {
		res.Cache = s.listCache(false)
	}
	return res, nil
}

// readDirectory answers resources/directory/read: the direct children of a
// skill directory, or -32602 for a URI that is not one. Every directory is
// one page.
func (s *Server) readDirectory(_ context.Context, _ *Request, p *mcp.ReadResourceDirectoryParams) (result, error) {
	if p.Cursor != "" {
		return nil, invalidParams("invalid cursor %q: this server lists a directory in one page; read it again without a cursor", truncateText(p.Cursor, 64))
	}
	kids, ok := s.skills.children(p.URI)
	if !ok {
		return nil, invalidParams("%s is not a directory resource of this server; a skill's directory is its SKILL.md URI without /SKILL.md", p.URI)
	}
	return &mcp.ReadResourceDirectoryResult{Resources: kids}, nil
}

// skillsCapability is the settings object of the Skills extension this
// server declares.
func skillsCapability() mcp.JSONObject {
	return mcp.JSONObject{mcp.SkillsDirectoryRead: []byte("true")}
}
