package server_test

import (
	"context"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/transport"
)

// Skills from a file system (here in memory; os.DirFS or an embed.FS work
// alike): one call serves every skill directory, and a client lists them
// and reads a skill's files, each verified against the entry's digest.
func ExampleServer_AddSkills() {
	skills := fstest.MapFS{
		"refunds/SKILL.md":           {Data: []byte("---\nname: refunds\ndescription: Handle refund requests\n---\n\nSee templates/email.md.\n")},
		"refunds/templates/email.md": {Data: []byte("Dear customer,\n")},
	}
	s := server.New(mcp.Implementation{Name: "billing", Version: "1.0.0"}, nil)
	if err := s.AddSkills(skills, &server.SkillsOptions{Prefix: "acme"}); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	clientEnd, serverEnd := transport.Pipe()
	if _, err := s.Connect(ctx, serverEnd, nil); err != nil {
		log.Fatal(err)
	}
	session, err := client.New(mcp.Implementation{Name: "host", Version: "1.0.0"}, nil).Connect(ctx, clientEnd)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for skill, err := range session.Skills(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(skill.Name()+":", skill.Description())
		for _, f := range skill.Resources {
			data, err := session.ReadSkillFile(ctx, skill, f.URI)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("  %s (%d bytes)\n", f.URI, len(data))
		}
	}
	// Output:
	// refunds: Handle refund requests
	//   skill://acme/refunds/SKILL.md (83 bytes)
	//   skill://acme/refunds/templates/email.md (15 bytes)
}
