package mcp

import (
	stdjson "encoding/json"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/weftmcp/weft/internal/jsonkind"
)

// ElicitMode is how the client collects the user's answer.
type ElicitMode string

// Elicitation modes.
const (
	// ElicitModeForm: a form built from RequestedSchema (the default when the
	// mode member is absent, and the only mode before 2025-11-25).
	ElicitModeForm ElicitMode = "form"
	// ElicitModeURL: the user visits URL out of band (2025-11-25+), for data
	// that must not pass through the client.
	ElicitModeURL ElicitMode = "url"
)

// ElicitParams are the params of elicitation/create (2025-06-18+): the union
// of the schema's ElicitRequestFormParams (Mode "form" or empty, Message,
// RequestedSchema) and ElicitRequestURLParams (Mode "url", Message, URL, and in
// 2025-11-25 only ElicitationID).
type ElicitParams struct {
	RequestParams
	Mode    ElicitMode `json:"mode,omitempty"`
	Message string     `json:"message"`
	// RequestedSchema is the form to fill (form mode; required there).
	RequestedSchema *ElicitSchema `json:"requestedSchema,omitzero"`
	// URL is where the user goes (URL mode).
	URL string `json:"url,omitempty"`
	// ElicitationID correlates a URL-mode elicitation with
	// notifications/elicitation/complete (2025-11-25 only).
	ElicitationID string `json:"elicitationId,omitempty"`
	// Task asks the client for a 2025-11-25 task.
	Task *TaskMetadata `json:"task,omitzero"`
}

// EffectiveMode returns the mode, ElicitModeForm when the member is absent.
func (p *ElicitParams) EffectiveMode() ElicitMode {
	if p.Mode == "" {
		return ElicitModeForm
	}
	return p.Mode
}

// ElicitSchema is the restricted JSON Schema of a form: a flat object of
// primitive properties.
type ElicitSchema struct {
	Schema string `json:"$schema,omitempty"` // 2025-11-25+
	// Type is always "object".
	Type       string           `json:"type"`
	Properties ElicitProperties `json:"properties"`
	Required   []string         `json:"required,omitempty"`
}

// ElicitProperty is one named field of a form.
type ElicitProperty struct {
	Name   string          `json:"name"`
	Schema PrimitiveSchema `json:"schema"`
}

// ElicitProperties are a form's fields in order. They encode as a JSON object
// whose members keep that order, the order a client shows them in.
type ElicitProperties []ElicitProperty

// MarshalJSONTo encodes the properties as an object in order.
func (ps ElicitProperties) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for i := range ps {
		if err := enc.WriteToken(jsontext.String(ps[i].Name)); err != nil {
			return err
		}
		if err := json.MarshalEncode(enc, &ps[i].Schema); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// UnmarshalJSONFrom decodes an object of property schemas, keeping member
// order; null decodes as nil.
func (ps *ElicitProperties) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		*ps = nil
		return nil
	case '{':
	default:
		return fmt.Errorf("form properties are a JSON %s, want an object", jsonkind.Name(tok.Kind()))
	}
	out := ElicitProperties{}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		p := ElicitProperty{Name: name.String()}
		if err := json.UnmarshalDecode(dec, &p.Schema); err != nil {
			return err
		}
		out = append(out, p)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	*ps = out
	return nil
}

// PrimitiveSchema is one form field: the union of the schema's StringSchema,
// NumberSchema, BooleanSchema and enum schemas (SEP-1330: untitled and titled
// single select, untitled and titled multi-select, and the legacy enumNames
// form). Type tells them apart: "string" (plain or single select), "number",
// "integer", "boolean" or "array" (multi-select).
type PrimitiveSchema struct {
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`

	// String constraints.
	MinLength *int64 `json:"minLength,omitzero"`
	MaxLength *int64 `json:"maxLength,omitzero"`
	// Format is "email", "uri", "date" or "date-time".
	Format string `json:"format,omitempty"`

	// Number constraints.
	Minimum *float64 `json:"minimum,omitzero"`
	Maximum *float64 `json:"maximum,omitzero"`

	// Enum lists the values of an untitled single select (and of the legacy
	// titled form, whose display names are EnumNames).
	Enum      []string `json:"enum,omitempty"`
	EnumNames []string `json:"enumNames,omitempty"`
	// OneOf lists the values and labels of a titled single select.
	OneOf []EnumOption `json:"oneOf,omitempty"`

	// Multi-select constraints and options.
	MinItems *int64     `json:"minItems,omitzero"`
	MaxItems *int64     `json:"maxItems,omitzero"`
	Items    *EnumItems `json:"items,omitzero"`

	// Default is the pre-filled value, raw (SEP-1034: string, number,
	// boolean, or array of strings for a multi-select).
	Default stdjson.RawMessage `json:"default,omitzero"`
}

// EnumOption is a selectable value and its display label.
type EnumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// EnumItems are a multi-select's options: Enum (untitled, with Type "string")
// or AnyOf (titled).
type EnumItems struct {
	Type  string       `json:"type,omitempty"`
	Enum  []string     `json:"enum,omitempty"`
	AnyOf []EnumOption `json:"anyOf,omitempty"`
}

// EnumValues returns the values a select field allows, in order, or nil for
// a field that is not a select.
func (s *PrimitiveSchema) EnumValues() []string {
	switch {
	case s.Enum != nil:
		return s.Enum
	case s.OneOf != nil:
		return optionValues(s.OneOf)
	case s.Items != nil && s.Items.Enum != nil:
		return s.Items.Enum
	case s.Items != nil && s.Items.AnyOf != nil:
		return optionValues(s.Items.AnyOf)
	}
	return nil
}

// optionValues returns the Const of each option.
func optionValues(opts []EnumOption) []string {
	out := make([]string, len(opts))
	for i, o := range opts {
		out[i] = o.Const
	}
	return out
}

// ElicitAction is the user's response to an elicitation.
type ElicitAction string

// Elicitation actions.
const (
	ElicitAccept  ElicitAction = "accept"  // submitted or confirmed
	ElicitDecline ElicitAction = "decline" // explicitly declined
	ElicitCancel  ElicitAction = "cancel"  // dismissed without choosing
)

// ElicitResult answers elicitation/create. As a modern input response it
// carries no resultType.
type ElicitResult struct {
	Result
	Action ElicitAction `json:"action"`
	// Content is the submitted form (accept in form mode only): values are
	// strings, numbers, booleans or arrays of strings, raw.
	Content JSONObject `json:"content,omitempty"`
}

// ElicitationCompleteNotificationParams are the params of
// notifications/elicitation/complete (2025-11-25 only): the URL-mode
// elicitation with this ID has finished.
type ElicitationCompleteNotificationParams struct {
	NotificationParams
	ElicitationID string `json:"elicitationId"`
}
