package mcp

import "testing"

func TestResourceListsRoundTrip(t *testing.T) {
	// Spec examples: ListResourcesResult and ListResourceTemplatesResult with cursor and TTL.
	r := roundTrip[ListResourcesResult](t, `{"resultType":"complete","resources":[{"uri":"file:///project/src/main.rs","name":"main.rs",
	  "title":"Rust Software Application Main File","description":"Primary application entry point","mimeType":"text/x-rust",
	  "icons":[{"src":"https://example.com/rust-file-icon.png","mimeType":"image/png","sizes":["48x48"]}]}],
	  "nextCursor":"eyJwYWdlIjogM30=","ttlMs":600000,"cacheScope":"private"}`, "")
	if r.Resources[0].Title == "" || r.Cache.CacheScope != CachePrivate {
		t.Errorf("list = %+v", r)
	}
	roundTrip[ListResourceTemplatesResult](t, `{"resultType":"complete","resourceTemplates":[{"uriTemplate":"file:///{path}",
	  "name":"Project Files","title":"📁 Project Files","description":"Access files in the project directory",
	  "mimeType":"application/octet-stream","icons":[{"src":"https://example.com/folder-icon.png","mimeType":"image/png","sizes":["48x48"]}]}],
	  "nextCursor":"next-page-cursor","ttlMs":3600000,"cacheScope":"public"}`, "")
	// Spec example: Resource/file-resource-with-annotations.
	roundTrip[Resource](t, `{"uri":"file:///project/README.md","name":"README.md","title":"Project Documentation","mimeType":"text/markdown",
	  "annotations":{"audience":["user"],"priority":0.8,"lastModified":"2025-01-12T15:00:58Z"},"size":1024}`, "")
	// Priority 0 ("least important") is a value, not an absence.
	roundTrip[Annotations](t, `{"priority":0}`, "")
	assertSameJSON(t, encode(t, &ListResourceTemplatesResult{}), `{"resourceTemplates":[]}`)
}

func TestReadAndSubscribeParams(t *testing.T) {
	p := roundTrip[ReadResourceParams](t, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},
	  "uri":"file:///project/src/main.rs"}`, "")
	if p.URI != "file:///project/src/main.rs" || p.InputResponses != nil {
		t.Errorf("params = %+v", p)
	}
	roundTrip[SubscribeParams](t, `{"uri":"file:///a"}`, "")
	roundTrip[UnsubscribeParams](t, `{"uri":"file:///a","_meta":{"progressToken":1}}`, "")
	// Spec example: PaginatedRequestParams/list-with-cursor.
	lp := roundTrip[ListResourcesParams](t, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
	  "io.modelcontextprotocol/clientCapabilities":{}},"cursor":"eyJwYWdlIjogMn0="}`, "")
	if lp.Cursor != "eyJwYWdlIjogMn0=" {
		t.Errorf("cursor = %q", lp.Cursor)
	}
	pr := roundTrip[PaginatedResult](t, `{"nextCursor":"c2","tools":[{"name":"ignored"}]}`, `{"nextCursor":"c2"}`)
	if pr.NextCursor != "c2" {
		t.Errorf("nextCursor = %q", pr.NextCursor)
	}
}
