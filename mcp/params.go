package mcp

// RequestParams is the base of every request's params: the _meta object. In
// legacy versions _meta is optional and may carry a progress token; in the
// modern era every request carries MetaProtocolVersion and
// MetaClientCapabilities in it. It is also the whole params of requests that
// take nothing else (ping, server/discover, roots/list).
type RequestParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// ParamsBase returns the base fields, so code generic over params types can
// reach _meta (every params type embeds RequestParams).
func (p *RequestParams) ParamsBase() *RequestParams { return p }

// NotificationParams is the base of every notification's params: the _meta
// object (with MetaSubscriptionID on a subscriptions/listen stream). It is the
// whole params of the list_changed and initialized notifications.
type NotificationParams struct {
	Meta Meta `json:"_meta,omitempty"`
}

// NotificationBase returns the base fields, so code generic over notification
// params can reach _meta.
func (p *NotificationParams) NotificationBase() *NotificationParams { return p }

// PingParams are the params of ping (legacy).
type PingParams = RequestParams

// InitializedNotificationParams are the params of notifications/initialized.
type InitializedNotificationParams = NotificationParams
