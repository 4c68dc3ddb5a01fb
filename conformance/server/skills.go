package main

import (
	"embed"
	"io/fs"

	"github.com/weftmcp/weft/server"
)

// skillFiles are the skills of the sep-2640-* scenarios: two skills, each
// with a subdirectory, for skills/list, skills/get, resources/read and
// resources/directory/read.
//
//go:embed skills
var skillFiles embed.FS

// addSkills serves the embedded skills.
func addSkills(s *server.Server) error {
	sub, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		return err
	}
	return s.AddSkills(sub, nil)
}
