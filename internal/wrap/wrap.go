// Package wrap composes middleware, as the server and the client both
// wrap their MethodHandler.
package wrap

// Chain wraps h in mw, the first outermost. It returns the zero H (nil)
// when mw is empty, so that a caller without middleware can tell and call
// its handler directly.
func Chain[M ~func(H) H, H any](mw []M, h H) H {
	if len(mw) == 0 {
		var none H
		return none
	}
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}
