package proxy

// withdraw removes what was offered before (*offered) but is no longer
// listed, and records listed as what is offered now.
func (p *Proxy) withdraw(offered *map[string]bool, listed map[string]bool, remove func(...string)) {
	var gone []string
	for name := range *offered {
		if !listed[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		remove(gone...)
	}
	*offered = listed
}
