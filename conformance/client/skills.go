package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/mcp"
)

// listSkills returns every skill the server lists, across pages.
func listSkills(ctx context.Context, s *client.Session) ([]*mcp.Skill, error) {
	var skills []*mcp.Skill
	for sk, err := range s.Skills(ctx) {
		if err != nil {
			return nil, fmt.Errorf("skills/list: %w", err)
		}
		skills = append(skills, sk)
	}
	return skills, nil
}

// playSkillsList lists the skills and fetches none of their files
// (sep-2640-client-no-prefetch).
func playSkillsList(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		_, err := listSkills(ctx, s)
		return err
	})
}

// playSkillsLoad lists the skills and loads the first: its SKILL.md,
// verified against the entry, then, only if that verified, its other files
// (sep-2640-client-verify-*). A verification failure is the host refusing
// tampered content, which completes the scenario.
func playSkillsLoad(ctx context.Context, e *env) error {
	return withSession(ctx, e, client.Options{}, func(s *client.Session) error {
		skills, err := listSkills(ctx, s)
		if err != nil {
			return err
		}
		if len(skills) == 0 {
			return errors.New("skills/list returned no skill to load")
		}
		sk := skills[0]
		if _, err := s.ReadSkillFile(ctx, sk, sk.URI); err != nil {
			if errors.Is(err, client.ErrSkillVerification) {
				fmt.Fprintf(os.Stderr, "refused to load the skill %s: %v\n", sk.URI, err)
				return nil
			}
			return err
		}
		for _, f := range sk.Resources {
			if f.URI == sk.URI {
				continue
			}
			if _, err := s.ReadSkillFile(ctx, sk, f.URI); err != nil {
				return err
			}
		}
		return nil
	})
}
