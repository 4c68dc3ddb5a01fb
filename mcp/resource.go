package mcp

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Resource is a resource the server can read.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"` // 2025-06-18+
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitzero"`
	// Size is the raw content size in bytes, if known.
	Size  *int64 `json:"size,omitzero"`
	Icons []Icon `json:"icons,omitempty"` // 2025-11-25+
	Meta  Meta   `json:"_meta,omitempty"` // 2025-06-18+
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI template.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"` // 2025-06-18+
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitzero"`
	Icons       []Icon       `json:"icons,omitempty"` // 2025-11-25+
	Meta        Meta         `json:"_meta,omitempty"` // 2025-06-18+
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams = PaginatedParams

// ListResourcesResult answers resources/list. Cache is required in the
// modern era.
type ListResourcesResult struct {
	Result
	Cache      *CacheableResult `json:",inline"`
	NextCursor string           `json:"nextCursor,omitempty"`
	Resources  []Resource       `json:"resources"`
}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams = PaginatedParams

// ListResourceTemplatesResult answers resources/templates/list. Cache is
// required in the modern era.
type ListResourceTemplatesResult struct {
	Result
	Cache             *CacheableResult   `json:",inline"`
	NextCursor        string             `json:"nextCursor,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
}

// ReadResourceParams are the params of resources/read. In the modern era the
// request may be retried with input responses.
type ReadResourceParams struct {
	InputResponseParams
	URI string `json:"uri"`
}

// ReadResourceResult answers resources/read. Cache is required in the modern
// era. A resource that does not exist is an error (ResourceNotFoundError),
// never an empty Contents.
type ReadResourceResult struct {
	Result
	Cache    *CacheableResult     `json:",inline"`
	Contents ResourceContentsList `json:"contents"`
}

// SubscribeParams are the params of resources/subscribe (legacy; the modern
// era subscribes through subscriptions/listen).
type SubscribeParams struct {
	RequestParams
	URI string `json:"uri"`
}

// UnsubscribeParams are the params of resources/unsubscribe (legacy).
type UnsubscribeParams struct {
	RequestParams
	URI string `json:"uri"`
}

// ResourceUpdatedNotificationParams are the params of
// notifications/resources/updated. URI may be a sub-resource of the one
// subscribed to.
type ResourceUpdatedNotificationParams struct {
	NotificationParams
	URI string `json:"uri"`
}

// ResourceListChangedNotificationParams are the params of
// notifications/resources/list_changed.
type ResourceListChangedNotificationParams = NotificationParams

// ResourceContents is the contents of a resource: *TextResourceContents or
// *BlobResourceContents, told apart on the wire by a "text" or "blob" member.
type ResourceContents interface {
	isResourceContents()
}

// TextResourceContents is a resource's contents as text.
type TextResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
	Meta     Meta   `json:"_meta,omitempty"` // 2025-06-18+
}

// BlobResourceContents is a resource's contents as binary data; Blob is
// base64 on the wire.
type BlobResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Blob     []byte `json:"blob"`
	Meta     Meta   `json:"_meta,omitempty"` // 2025-06-18+
}

func (*TextResourceContents) isResourceContents() {}
func (*BlobResourceContents) isResourceContents() {}

// ResourceContentsList is a list of resource contents that decodes each item
// as text or blob contents.
type ResourceContentsList []ResourceContents

// MarshalJSONTo encodes the contents as an array ([] when empty); a nil item
// is an error.
func (l ResourceContentsList) MarshalJSONTo(enc *jsontext.Encoder) error {
	return encodeArray(enc, "resource contents", l)
}

// UnmarshalJSONFrom decodes an array of contents; null decodes as nil.
func (l *ResourceContentsList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	out, err := decodeArray(dec, "resource contents", decodeResourceContents)
	*l = out
	return err
}

// resourceContentsUnion has the members of both contents types.
type resourceContentsUnion struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *[]byte `json:"blob"`
	Meta     Meta    `json:"_meta"`
}

// decodeResourceContents decodes one contents object, text or blob.
func decodeResourceContents(dec *jsontext.Decoder) (ResourceContents, error) {
	var u resourceContentsUnion
	if err := json.UnmarshalDecode(dec, &u); err != nil {
		return nil, err
	}
	switch {
	case u.Text != nil && u.Blob != nil:
		return nil, fmt.Errorf("resource contents for %q have both text and blob members; want one", u.URI)
	case u.Text != nil:
		return &TextResourceContents{URI: u.URI, MIMEType: u.MIMEType, Text: *u.Text, Meta: u.Meta}, nil
	case u.Blob != nil:
		return &BlobResourceContents{URI: u.URI, MIMEType: u.MIMEType, Blob: *u.Blob, Meta: u.Meta}, nil
	}
	return nil, fmt.Errorf("resource contents for %q have neither a text nor a blob member", u.URI)
}

// resourceContentsBox decodes one polymorphic ResourceContents in a struct.
type resourceContentsBox struct{ v ResourceContents }

// UnmarshalJSONFrom decodes text or blob contents into the box.
func (b *resourceContentsBox) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := decodeResourceContents(dec)
	b.v = v
	return err
}
