package mcp

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file bridges encoding/json to the json/v2 forms of the package's types.
//
// A type either has no JSON methods, and its field tags mean the same to both
// encoders, or only the two decoding ones (Meta: encoded the default way,
// decoded faster), or it has all four: MarshalJSONTo and UnmarshalJSONFrom (json/v2)
// hold its one implementation, and MarshalJSON and UnmarshalJSON
// (encoding/json) below call json/v2, which prefers the json/v2 pair, so they
// change nothing on weft's own paths. MarshalJSON has a value receiver so
// that encoding/json uses it on values that are not addressable, and sorts
// map members as encoding/json does. UnmarshalJSON decodes as strictly as
// json/v2: member names are case-sensitive, duplicates and invalid UTF-8 are
// rejected.
//
// A type embedded in others must stay method-less: json/v2 cannot inline a
// type with methods, and Go would promote them to the embedding type.
// TestEveryExportedTypeHasASample and TestEveryTypeEncodesAlikeUnderBothEncoders
// hold every exported type to this.

// marshalStd encodes v, a pointer to one of the package's values, for an
// encoding/json MarshalJSON method.
func marshalStd(v any) ([]byte, error) { return json.Marshal(v, json.Deterministic(true)) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c TextContent) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *TextContent) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c ImageContent) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *ImageContent) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c AudioContent) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *AudioContent) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c ResourceLink) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *ResourceLink) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c EmbeddedResource) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *EmbeddedResource) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c ToolUseContent) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *ToolUseContent) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the block for encoding/json as MarshalJSONTo does.
func (c ToolResultContent) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the block for encoding/json as UnmarshalJSONFrom does.
func (c *ToolResultContent) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSON encodes the blocks for encoding/json as MarshalJSONTo does.
func (cs Contents) MarshalJSON() ([]byte, error) { return marshalStd(&cs) }

// UnmarshalJSON decodes the blocks for encoding/json as UnmarshalJSONFrom does.
func (cs *Contents) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, cs) }

// MarshalJSON encodes the blocks for encoding/json as MarshalJSONTo does.
func (cs SamplingContents) MarshalJSON() ([]byte, error) { return marshalStd(&cs) }

// UnmarshalJSON decodes the blocks for encoding/json as UnmarshalJSONFrom does.
func (cs *SamplingContents) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, cs) }

// MarshalJSON encodes the contents for encoding/json as MarshalJSONTo does.
func (l ResourceContentsList) MarshalJSON() ([]byte, error) { return marshalStd(&l) }

// UnmarshalJSON decodes the contents for encoding/json as UnmarshalJSONFrom does.
func (l *ResourceContentsList) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, l) }

// MarshalJSON encodes the properties for encoding/json as MarshalJSONTo does.
func (ps ElicitProperties) MarshalJSON() ([]byte, error) { return marshalStd(&ps) }

// UnmarshalJSON decodes the properties for encoding/json as UnmarshalJSONFrom does.
func (ps *ElicitProperties) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, ps) }

// MarshalJSON encodes the token for encoding/json as MarshalJSONTo does.
func (t ProgressToken) MarshalJSON() ([]byte, error) { return marshalStd(&t) }

// UnmarshalJSON decodes the token for encoding/json as UnmarshalJSONFrom does.
func (t *ProgressToken) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, t) }

// MarshalJSON encodes the message for encoding/json as MarshalJSONTo does.
func (m PromptMessage) MarshalJSON() ([]byte, error) { return marshalStd(&m) }

// UnmarshalJSON decodes the message for encoding/json as UnmarshalJSONFrom does.
func (m *PromptMessage) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, m) }

// The types below are plain structs whose tags encoding/json cannot follow:
// an inlined Cache pointer, or a required array or object that json/v2
// encodes as [] or {} when nil where encoding/json would write null. Their
// json/v2 pair encodes the *Fields type, which has the same fields and tags
// but no methods.
type (
	listToolsResultFields             ListToolsResult
	listPromptsResultFields           ListPromptsResult
	getPromptResultFields             GetPromptResult
	listResourcesResultFields         ListResourcesResult
	listResourceTemplatesResultFields ListResourceTemplatesResult
	readResourceResultFields          ReadResourceResult
	blobResourceContentsFields        BlobResourceContents
	discoverResultFields              DiscoverResult
	completionFields                  Completion
	createMessageParamsFields         CreateMessageParams
	listRootsResultFields             ListRootsResult
	listTasksResultFields             ListTasksResult
	updateTaskParamsFields            UpdateTaskParams
	unsupportedVersionDataFields      UnsupportedVersionData
	urlElicitationRequiredDataFields  URLElicitationRequiredData
)

// MarshalJSONTo encodes the result by its field tags.
func (r *ListToolsResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listToolsResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListToolsResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listToolsResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListToolsResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListToolsResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ListPromptsResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listPromptsResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListPromptsResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listPromptsResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListPromptsResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListPromptsResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *GetPromptResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*getPromptResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *GetPromptResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*getPromptResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r GetPromptResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *GetPromptResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ListResourcesResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listResourcesResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListResourcesResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listResourcesResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListResourcesResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListResourcesResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ListResourceTemplatesResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listResourceTemplatesResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListResourceTemplatesResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listResourceTemplatesResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListResourceTemplatesResult) UnmarshalJSON(data []byte) error {
	return json.Unmarshal(data, r)
}

// MarshalJSONTo encodes the result by its field tags.
func (r *ReadResourceResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*readResourceResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ReadResourceResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*readResourceResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ReadResourceResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ReadResourceResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the contents by their field tags.
func (c *BlobResourceContents) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*blobResourceContentsFields)(c))
}

// UnmarshalJSONFrom decodes the contents by their field tags.
func (c *BlobResourceContents) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*blobResourceContentsFields)(c))
}

// MarshalJSON encodes the contents for encoding/json as MarshalJSONTo does.
func (c BlobResourceContents) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the contents for encoding/json as UnmarshalJSONFrom does.
func (c *BlobResourceContents) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSONTo encodes the result by its field tags.
func (r *DiscoverResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*discoverResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *DiscoverResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*discoverResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r DiscoverResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *DiscoverResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the completion by its field tags.
func (c *Completion) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*completionFields)(c))
}

// UnmarshalJSONFrom decodes the completion by its field tags.
func (c *Completion) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*completionFields)(c))
}

// MarshalJSON encodes the completion for encoding/json as MarshalJSONTo does.
func (c Completion) MarshalJSON() ([]byte, error) { return marshalStd(&c) }

// UnmarshalJSON decodes the completion for encoding/json as UnmarshalJSONFrom does.
func (c *Completion) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, c) }

// MarshalJSONTo encodes the params by their field tags.
func (p *CreateMessageParams) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*createMessageParamsFields)(p))
}

// UnmarshalJSONFrom decodes the params by their field tags.
func (p *CreateMessageParams) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*createMessageParamsFields)(p))
}

// MarshalJSON encodes the params for encoding/json as MarshalJSONTo does.
func (p CreateMessageParams) MarshalJSON() ([]byte, error) { return marshalStd(&p) }

// UnmarshalJSON decodes the params for encoding/json as UnmarshalJSONFrom does.
func (p *CreateMessageParams) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, p) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ListRootsResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listRootsResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListRootsResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listRootsResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListRootsResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListRootsResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ListTasksResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listTasksResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListTasksResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listTasksResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListTasksResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListTasksResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the params by their field tags.
func (p *UpdateTaskParams) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*updateTaskParamsFields)(p))
}

// UnmarshalJSONFrom decodes the params by their field tags.
func (p *UpdateTaskParams) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*updateTaskParamsFields)(p))
}

// MarshalJSON encodes the params for encoding/json as MarshalJSONTo does.
func (p UpdateTaskParams) MarshalJSON() ([]byte, error) { return marshalStd(&p) }

// UnmarshalJSON decodes the params for encoding/json as UnmarshalJSONFrom does.
func (p *UpdateTaskParams) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, p) }

// MarshalJSONTo encodes the data by its field tags.
func (d *UnsupportedVersionData) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*unsupportedVersionDataFields)(d))
}

// UnmarshalJSONFrom decodes the data by its field tags.
func (d *UnsupportedVersionData) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*unsupportedVersionDataFields)(d))
}

// MarshalJSON encodes the data for encoding/json as MarshalJSONTo does.
func (d UnsupportedVersionData) MarshalJSON() ([]byte, error) { return marshalStd(&d) }

// UnmarshalJSON decodes the data for encoding/json as UnmarshalJSONFrom does.
func (d *UnsupportedVersionData) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, d) }

// MarshalJSONTo encodes the data by its field tags.
func (d *URLElicitationRequiredData) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*urlElicitationRequiredDataFields)(d))
}

// UnmarshalJSONFrom decodes the data by its field tags.
func (d *URLElicitationRequiredData) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*urlElicitationRequiredDataFields)(d))
}

// MarshalJSON encodes the data for encoding/json as MarshalJSONTo does.
func (d URLElicitationRequiredData) MarshalJSON() ([]byte, error) { return marshalStd(&d) }

// UnmarshalJSON decodes the data for encoding/json as UnmarshalJSONFrom does.
func (d *URLElicitationRequiredData) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, d) }

// MarshalJSON encodes the params for encoding/json as MarshalJSONTo does.
func (p ProgressNotificationParams) MarshalJSON() ([]byte, error) { return marshalStd(&p) }

// UnmarshalJSON decodes the params for encoding/json as UnmarshalJSONFrom does.
func (p *ProgressNotificationParams) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, p) }

// UnmarshalJSON decodes the _meta object for encoding/json as UnmarshalJSONFrom does.
func (m *Meta) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, m) }
