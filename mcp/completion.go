package mcp

// Completion reference types: the "type" member of a Reference.
const (
	ReferencePrompt   = "ref/prompt"
	ReferenceResource = "ref/resource"
)

// Reference names what a completion is for. It is the union of the schema's
// PromptReference (Type "ref/prompt", Name, optional Title) and
// ResourceTemplateReference (Type "ref/resource", URI: a URI or URI template;
// called ResourceReference before 2025-06-18, same wire form).
type Reference struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	RequestParams
	Ref      Reference        `json:"ref"`
	Argument CompleteArgument `json:"argument"`
	// Context holds already-resolved arguments (2025-06-18+).
	Context *CompleteContext `json:"context,omitzero"`
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext is additional context for a completion.
type CompleteContext struct {
	// Arguments are previously resolved template variables or prompt arguments.
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult answers completion/complete.
type CompleteResult struct {
	Result
	Completion Completion `json:"completion"`
}

// Completion is a page of completion values.
type Completion struct {
	// Values are at most 100 suggestions; always encoded, as [] when empty.
	Values []string `json:"values"`
	// Total is how many suggestions exist, if known.
	Total *int64 `json:"total,omitzero"`
	// HasMore says whether there are more suggestions than Values holds;
	// nil omits it, so a pointer to false says "no more" explicitly.
	HasMore *bool `json:"hasMore,omitzero"`
}
