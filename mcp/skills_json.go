package mcp

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The Skills extension's types whose tags encoding/json cannot follow (see
// stdjson.go): a nil frontmatter, skills or resources member that json/v2
// writes as {} or [], and an inlined Cache. Their json/v2 pair encodes the
// method-less *Fields twin.
type (
	skillFields                       Skill
	listSkillsResultFields            ListSkillsResult
	getSkillResultFields              GetSkillResult
	readResourceDirectoryResultFields ReadResourceDirectoryResult
)

// MarshalJSON encodes the resources for encoding/json as MarshalJSONTo does.
func (r SkillResources) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the resources for encoding/json as UnmarshalJSONFrom does.
func (r *SkillResources) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the entry by its field tags.
func (s *Skill) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*skillFields)(s))
}

// UnmarshalJSONFrom decodes the entry by its field tags. An entry without
// resources is an error, not a dynamic skill: a host must not load it.
func (s *Skill) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var w struct {
		URI         string          `json:"uri"`
		Frontmatter JSONObject      `json:"frontmatter"`
		Resources   *SkillResources `json:"resources"`
	}
	if err := json.UnmarshalDecode(dec, &w); err != nil {
		return err
	}
	if w.Resources == nil {
		return fmt.Errorf("the skill entry %q has no resources; it must list its files or say \"dynamic\"", w.URI)
	}
	*s = Skill{URI: w.URI, Frontmatter: w.Frontmatter, Resources: *w.Resources}
	return nil
}

// MarshalJSON encodes the entry for encoding/json as MarshalJSONTo does.
func (s Skill) MarshalJSON() ([]byte, error) { return marshalStd(&s) }

// UnmarshalJSON decodes the entry for encoding/json as UnmarshalJSONFrom does.
func (s *Skill) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, s) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ListSkillsResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*listSkillsResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ListSkillsResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*listSkillsResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ListSkillsResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ListSkillsResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *GetSkillResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*getSkillResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *GetSkillResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*getSkillResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r GetSkillResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *GetSkillResult) UnmarshalJSON(data []byte) error { return json.Unmarshal(data, r) }

// MarshalJSONTo encodes the result by its field tags.
func (r *ReadResourceDirectoryResult) MarshalJSONTo(enc *jsontext.Encoder) error {
	return json.MarshalEncode(enc, (*readResourceDirectoryResultFields)(r))
}

// UnmarshalJSONFrom decodes the result by its field tags.
func (r *ReadResourceDirectoryResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return json.UnmarshalDecode(dec, (*readResourceDirectoryResultFields)(r))
}

// MarshalJSON encodes the result for encoding/json as MarshalJSONTo does.
func (r ReadResourceDirectoryResult) MarshalJSON() ([]byte, error) { return marshalStd(&r) }

// UnmarshalJSON decodes the result for encoding/json as UnmarshalJSONFrom does.
func (r *ReadResourceDirectoryResult) UnmarshalJSON(data []byte) error {
	return json.Unmarshal(data, r)
}
