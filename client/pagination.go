package client

import (
	"context"
	"fmt"
	"iter"

	"github.com/weftmcp/weft/mcp"
)

// Tools iterates over every tool the server offers, following nextCursor
// from page to page (tools/list). An error ends the iteration.
func (s *Session) Tools(ctx context.Context, opts ...CallOption) iter.Seq2[*mcp.Tool, error] {
	return paginate(mcp.MethodToolsList, func(cursor string) ([]mcp.Tool, string, error) {
		res, err := s.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor}, opts...)
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	})
}

// Resources iterates over every resource the server offers, following
// nextCursor from page to page (resources/list). An error ends the iteration.
func (s *Session) Resources(ctx context.Context, opts ...CallOption) iter.Seq2[*mcp.Resource, error] {
	return paginate(mcp.MethodResourcesList, func(cursor string) ([]mcp.Resource, string, error) {
		res, err := s.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor}, opts...)
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	})
}

// ResourceTemplates iterates over every resource template the server offers,
// following nextCursor from page to page (resources/templates/list). An
// error ends the iteration.
func (s *Session) ResourceTemplates(ctx context.Context, opts ...CallOption) iter.Seq2[*mcp.ResourceTemplate, error] {
	return paginate(mcp.MethodResourcesTemplatesList, func(cursor string) ([]mcp.ResourceTemplate, string, error) {
		res, err := s.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor}, opts...)
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	})
}

// Prompts iterates over every prompt the server offers, following
// nextCursor from page to page (prompts/list). An error ends the iteration.
func (s *Session) Prompts(ctx context.Context, opts ...CallOption) iter.Seq2[*mcp.Prompt, error] {
	return paginate(mcp.MethodPromptsList, func(cursor string) ([]mcp.Prompt, string, error) {
		res, err := s.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor}, opts...)
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	})
}

// paginate yields the items of every page list returns, starting with the
// empty cursor, until a page has no next cursor. A cursor the server hands
// out twice would loop forever, so it ends the iteration with an error.
func paginate[T any](method string, list func(cursor string) ([]T, string, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		seen := make(map[string]bool)
		cursor := ""
		for {
			items, next, err := list(cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range items {
				if !yield(&items[i], nil) {
					return
				}
			}
			if next == "" {
				return
			}
			if seen[next] {
				yield(nil, fmt.Errorf("client: %s: the server returned the cursor %q a second time; stopping so as not to loop forever", method, next))
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}
