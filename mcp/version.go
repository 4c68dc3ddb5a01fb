package mcp

// The protocol versions this package describes. Versions are dates, so a later
// version compares greater as a string.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// LatestVersion is the newest protocol version this package speaks.
const LatestVersion = Version20260728

// LatestLegacyVersion is the newest version negotiated with the initialize
// handshake; a legacy peer asking for something we do not speak gets this one.
const LatestLegacyVersion = Version20251125

// SupportedVersions returns every supported version, newest first. The slice
// is freshly allocated; the caller may keep or modify it.
func SupportedVersions() []string {
	return []string{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}
}

// IsSupported reports whether v is one of the versions this package speaks.
func IsSupported(v string) bool {
	switch v {
	case Version20241105, Version20250326, Version20250618, Version20251125, Version20260728:
		return true
	}
	return false
}

// IsModern reports whether v belongs to the modern era (2026-07-28 and later):
// no handshake, per-request _meta, server/discover, resultType on every result.
// It is true for well-formed future dates too, so a peer can tell a modern
// version it does not support from a legacy one.
func IsModern(v string) bool { return isDate(v) && v >= Version20260728 }

// IsLegacy reports whether v is a legacy version (2025-11-25 and earlier),
// negotiated by the initialize handshake and scoped to a session.
func IsLegacy(v string) bool { return isDate(v) && v < Version20260728 }

// Negotiate answers the legacy handshake: it returns requested when it is a
// supported legacy version and LatestLegacyVersion otherwise. A modern version
// in an initialize request is answered with LatestLegacyVersion too, since the
// handshake itself only exists in the legacy era.
func Negotiate(requested string) string {
	if IsSupported(requested) && IsLegacy(requested) {
		return requested
	}
	return LatestLegacyVersion
}

// AllowsBatch reports whether JSON-RPC batches are allowed: only in 2025-03-26.
func AllowsBatch(v string) bool { return v == Version20250326 }

// SupportsAudioContent reports whether "audio" content blocks exist (2025-03-26+).
func SupportsAudioContent(v string) bool { return atLeast(v, Version20250326) }

// SupportsToolAnnotations reports whether Tool.annotations exists (2025-03-26+).
func SupportsToolAnnotations(v string) bool { return atLeast(v, Version20250326) }

// SupportsCompletionsCapability reports whether servers declare the
// completions capability (2025-03-26+); 2024-11-05 servers offered
// completion/complete without declaring it.
func SupportsCompletionsCapability(v string) bool { return atLeast(v, Version20250326) }

// SupportsProgressMessage reports whether progress notifications carry a
// message (2025-03-26+).
func SupportsProgressMessage(v string) bool { return atLeast(v, Version20250326) }

// SupportsStructuredContent reports whether tools have outputSchema and results
// carry structuredContent (2025-06-18+). Before 2026-07-28 both must be JSON
// objects; see SupportsAnyStructuredContent.
func SupportsStructuredContent(v string) bool { return atLeast(v, Version20250618) }

// SupportsAnyStructuredContent reports whether structuredContent and
// outputSchema may be any JSON value rather than an object (2026-07-28+).
func SupportsAnyStructuredContent(v string) bool { return atLeast(v, Version20260728) }

// SupportsResourceLinks reports whether "resource_link" content blocks exist
// (2025-06-18+).
func SupportsResourceLinks(v string) bool { return atLeast(v, Version20250618) }

// SupportsTitles reports whether tools, prompts, resources and implementations
// carry a display title (2025-06-18+).
func SupportsTitles(v string) bool { return atLeast(v, Version20250618) }

// SupportsElicitation reports whether elicitation exists (2025-06-18+). In the
// modern era it only travels inside InputRequiredResult, never as a request.
func SupportsElicitation(v string) bool { return atLeast(v, Version20250618) }

// SupportsCompletionContext reports whether completion/complete carries the
// context of already-resolved arguments (2025-06-18+).
func SupportsCompletionContext(v string) bool { return atLeast(v, Version20250618) }

// SupportsIcons reports whether icons, Implementation.description and
// Implementation.websiteUrl exist (2025-11-25+).
func SupportsIcons(v string) bool { return atLeast(v, Version20251125) }

// SupportsURLElicitation reports whether elicitation has the "url" mode and
// elicitation capabilities have form/url sub-capabilities (2025-11-25+).
func SupportsURLElicitation(v string) bool { return atLeast(v, Version20251125) }

// SupportsElicitationID reports whether URL-mode elicitations carry an
// elicitationId, with notifications/elicitation/complete and the -32042 error:
// only in 2025-11-25. The modern era correlates through requestState instead.
func SupportsElicitationID(v string) bool { return v == Version20251125 }

// SupportsSamplingTools reports whether sampling requests may offer tools and
// sampling messages may hold tool_use/tool_result blocks or arrays of blocks
// (2025-11-25+).
func SupportsSamplingTools(v string) bool { return atLeast(v, Version20251125) }

// SupportsSamplingContext reports whether the sampling capability has a
// context member, which a client must declare before it is asked for
// includeContext other than "none" (2025-11-25+); before, declaring
// sampling covered every includeContext value.
func SupportsSamplingContext(v string) bool { return atLeast(v, Version20251125) }

// InvalidArgumentsAreToolErrors reports whether tool arguments that fail the
// tool's input schema are a tool execution error (a CallToolResult with
// isError, which the model sees and can correct) rather than the protocol
// error -32602: 2025-11-25+ (SEP-1303). The tools pages before it list
// invalid arguments among the protocol errors.
func InvalidArgumentsAreToolErrors(v string) bool { return atLeast(v, Version20251125) }

// SupportsTasksV1 reports whether the experimental core tasks of 2025-11-25
// apply: the task request parameter, tasks/get|result|list|cancel and
// notifications/tasks/status. They exist in no other version.
func SupportsTasksV1(v string) bool { return v == Version20251125 }

// SupportsTasksExtension reports whether the io.modelcontextprotocol/tasks
// extension (SEP-2663) can apply: modern versions only; it is undefined under
// 2025-11-25 and earlier.
func SupportsTasksExtension(v string) bool { return IsModern(v) }

// SupportsResultType reports whether every result carries resultType and a
// request may be answered with an InputRequiredResult (modern era). A result
// without resultType from a legacy peer counts as complete.
func SupportsResultType(v string) bool { return IsModern(v) }

// SupportsCaching reports whether list results, resources/read and
// server/discover carry the required ttlMs and cacheScope (modern era).
func SupportsCaching(v string) bool { return IsModern(v) }

// atLeast reports whether v is a well-formed version no older than min.
func atLeast(v, min string) bool { return isDate(v) && v >= min }

// isDate reports whether v has the YYYY-MM-DD shape of a protocol version.
func isDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i == 4 || i == 7 {
			continue
		}
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}
