package mcp

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Prompt is a prompt or prompt template the server offers.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"` // 2025-06-18+
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"` // 2025-11-25+
	Meta        Meta             `json:"_meta,omitempty"` // 2025-06-18+
}

// PromptArgument is an argument a prompt template accepts.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"` // 2025-06-18+
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitzero"`
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams = PaginatedParams

// ListPromptsResult answers prompts/list. Cache is required in the modern era.
type ListPromptsResult struct {
	Result
	Cache      *CacheableResult `json:",inline"`
	NextCursor string           `json:"nextCursor,omitempty"`
	Prompts    []Prompt         `json:"prompts"`
}

// GetPromptParams are the params of prompts/get. In the modern era the
// request may be retried with input responses.
type GetPromptParams struct {
	InputResponseParams
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

// GetPromptResult answers prompts/get.
type GetPromptResult struct {
	Result
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// PromptMessage is one message of a prompt. Unlike a sampling message it holds
// exactly one block, which may embed resources.
type PromptMessage struct {
	Role    Role
	Content Content
}

// promptMessageWire is PromptMessage's wire form.
type promptMessageWire struct {
	Role    Role       `json:"role"`
	Content contentBox `json:"content"`
}

// MarshalJSONTo encodes the message; a nil Content is an error.
func (m *PromptMessage) MarshalJSONTo(enc *jsontext.Encoder) error {
	if m.Content == nil {
		return fmt.Errorf("prompt message has no content")
	}
	return json.MarshalEncode(enc, &promptMessageWire{Role: m.Role, Content: contentBox{m.Content}})
}

// UnmarshalJSONFrom decodes the message and its content block by type.
func (m *PromptMessage) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var w promptMessageWire
	if err := json.UnmarshalDecode(dec, &w); err != nil {
		return err
	}
	if w.Content.v == nil {
		return fmt.Errorf("prompt message has no content member")
	}
	*m = PromptMessage{Role: w.Role, Content: w.Content.v}
	return nil
}

// contentBox holds one polymorphic Content inside a wire struct.
type contentBox struct{ v Content }

// MarshalJSONTo encodes the boxed block.
func (b contentBox) MarshalJSONTo(enc *jsontext.Encoder) error { return json.MarshalEncode(enc, b.v) }

// UnmarshalJSONFrom decodes one block by its type.
func (b *contentBox) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := decodeContent(dec)
	b.v = v
	return err
}

// PromptListChangedNotificationParams are the params of
// notifications/prompts/list_changed.
type PromptListChangedNotificationParams = NotificationParams
