package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

func newSkills(e *env) *cobra.Command {
	var out outputFlags
	var dir string
	cmd := &cobra.Command{
		Use:   "skills [URL] [SKILL] [--out DIR] [-- COMMAND [ARGS...]]",
		Short: "List the skills a server serves, or show or fetch one",
		Long: "List the skills a server serves (the Skills extension, io.modelcontextprotocol/skills).\n\n" +
			"With SKILL (a skill's name, or the URI of its SKILL.md), show that skill's entry; with --out DIR,\n" +
			"fetch every file of it into DIR, each checked against the size and SHA-256 digest the server\n" +
			"published for it (and SKILL.md's frontmatter against the entry's). A file that fails the check\n" +
			"is not written, and the command exits 2.\n\n" + targetHelp,
		Example: `  weft skills http://127.0.0.1:8080/mcp
  weft skills http://127.0.0.1:8080/mcp pdf-processing --out ./skills/pdf-processing
  weft skills --json skill://acme/refunds/SKILL.md -- my-server --stdio`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			t, rest, err := splitTarget(cmd, args)
			if err != nil {
				return err
			}
			if len(rest) > 1 {
				return usageError("skills takes at most one skill after the server, got %d arguments", len(rest))
			}
			if dir != "" && len(rest) == 0 {
				return usageError("--out needs the skill to fetch: give its name or SKILL.md URI")
			}
			return withSession(cmd.Context(), e, t, &out, client.Options{}, func(s *client.Session) error {
				ctx := cmd.Context()
				if !s.ServerCapabilities().HasExtension(mcp.ExtensionSkills) {
					return fmt.Errorf("the server does not declare the skills extension (%s), so it serves no skills", mcp.ExtensionSkills)
				}
				if len(rest) == 0 {
					return listSkills(ctx, e, &out, s)
				}
				sk, err := findSkill(ctx, s, rest[0])
				if err != nil {
					return err
				}
				if dir != "" {
					return fetchSkill(ctx, e, s, sk, dir)
				}
				if !out.human(e) {
					return printJSON(e.stdout, sk)
				}
				fmt.Fprintf(e.stdout, "%s: %s\n%s\n", sk.Name(), oneLine(sk.Description()), sk.URI)
				if sk.Resources.Dynamic() {
					fmt.Fprintln(e.stdout, "files: dynamic (the server publishes no list)")
					return nil
				}
				for _, f := range sk.Resources {
					fmt.Fprintf(e.stdout, "  %s  %d bytes  %s\n", f.URI, f.Size, f.Digest)
				}
				return nil
			})
		}),
	}
	cmd.Flags().StringVar(&dir, "out", "", "fetch the skill's files, verified, into this directory")
	out.add(cmd)
	return cmd
}

// listSkills prints every skill the server lists.
func listSkills(ctx context.Context, e *env, out *outputFlags, s *client.Session) error {
	skills, err := collect(s.Skills(ctx), "skills")
	if err != nil {
		return err
	}
	if !out.human(e) {
		return printJSON(e.stdout, struct {
			Skills []*mcp.Skill `json:"skills"`
		}{skills})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFILES\tURI\tDESCRIPTION")
	for _, sk := range skills {
		files := "dynamic"
		if !sk.Resources.Dynamic() {
			files = fmt.Sprint(len(sk.Resources))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sk.Name(), files, sk.URI, oneLine(sk.Description()))
	}
	return tw.Flush()
}

// findSkill returns the entry of the skill named by arg: a URI is asked for
// with skills/get; a name is looked up in the listing, and must name one
// skill only.
func findSkill(ctx context.Context, s *client.Session, arg string) (*mcp.Skill, error) {
	if strings.Contains(arg, "://") {
		sk, err := s.GetSkill(ctx, arg)
		if err != nil {
			return nil, protocolError("getting the skill "+arg, err)
		}
		return sk, nil
	}
	var found []*mcp.Skill
	for sk, err := range s.Skills(ctx) {
		if err != nil {
			return nil, protocolError("listing skills", err)
		}
		if sk.Name() == arg {
			found = append(found, sk)
		}
	}
	switch len(found) {
	case 0:
		return nil, usageError("the server lists no skill named %q; run weft skills to see them, or give the skill's SKILL.md URI", arg)
	case 1:
		return found[0], nil
	}
	uris := make([]string, len(found))
	for i, sk := range found {
		uris[i] = sk.URI
	}
	return nil, usageError("%d skills are named %q; give the SKILL.md URI of one: %s", len(found), arg, strings.Join(uris, ", "))
}

// fetchSkill writes every file of the skill into dir, at its path below the
// skill's root, each verified before it is written.
func fetchSkill(ctx context.Context, e *env, s *client.Session, sk *mcp.Skill, dir string) error {
	if sk.Resources.Dynamic() {
		return fmt.Errorf("the skill %s is dynamic: the server publishes no list of its files to fetch and verify; read its SKILL.md with weft read", sk.URI)
	}
	root := sk.Root()
	for _, f := range sk.Resources {
		rel, ok := strings.CutPrefix(f.URI, root+"/")
		local := filepath.FromSlash(rel)
		if !ok || !filepath.IsLocal(local) {
			return fmt.Errorf("the skill %s lists %s, which is not a file inside it; nothing more was written", sk.URI, f.URI)
		}
		data, err := s.ReadSkillFile(ctx, sk, f.URI)
		if err != nil {
			return protocolError("fetching "+f.URI, err)
		}
		path := filepath.Join(dir, local)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s (%d bytes, verified)\n", path, len(data))
	}
	return nil
}
