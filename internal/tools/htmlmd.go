package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// htmlNoise are elements that never carry the content a reader came for:
// code and styling, navigation and chrome, form controls, embedded media.
// Dropping them before conversion keeps the page small enough that the
// text that matters survives the output cap.
var htmlNoise = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Aside: true, atom.Form: true, atom.Button: true,
	atom.Select: true, atom.Svg: true, atom.Canvas: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Video: true, atom.Audio: true,
	atom.Dialog: true, atom.Head: true,
}

// htmlChromeRoles are ARIA landmarks that mark site chrome, the
// <div role="navigation"> of pages older than <nav>.
var htmlChromeRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true, "search": true,
}

// htmlMinMainText is how much text a <main> or <article> must hold to be
// converted alone; less is usually a shell that scripts fill in, and the
// whole body is a better guess.
const htmlMinMainText = 200

// htmlToMarkdown converts an HTML page to markdown, without its noise, and
// returns its title. Relative links are made absolute against baseURL so
// the model can fetch them next.
func htmlToMarkdown(ctx context.Context, page []byte, baseURL string) (title, md string, err error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return "", "", err
	}
	title = strings.Join(strings.Fields(nodeText(findElement(doc, atom.Title))), " ")
	pruneHTML(doc, false)
	root := contentRoot(doc)

	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	out, err := conv.ConvertNode(root, converter.WithDomain(baseURL), converter.WithContext(ctx))
	if err != nil {
		return title, "", err
	}
	return title, strings.TrimSpace(string(out)), nil
}

// pruneHTML removes noise elements below n. Page-wide headers and footers
// are chrome, but inside an <article> they hold its byline and notes, so
// they are kept there.
func pruneHTML(n *html.Node, inArticle bool) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.CommentNode {
			n.RemoveChild(c)
		} else if c.Type == html.ElementNode {
			if isNoise(c, inArticle) {
				n.RemoveChild(c)
			} else {
				pruneHTML(c, inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main)
			}
		}
		c = next
	}
}

func isNoise(n *html.Node, inArticle bool) bool {
	if htmlNoise[n.DataAtom] {
		return true
	}
	if !inArticle && (n.DataAtom == atom.Header || n.DataAtom == atom.Footer) {
		return true
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "role":
			if htmlChromeRoles[strings.ToLower(a.Val)] {
				return true
			}
		}
	}
	return false
}

// contentRoot picks what to convert: the page's only <main>, else its
// only <article>, when it holds real text; otherwise the whole document.
func contentRoot(doc *html.Node) *html.Node {
	for _, a := range []atom.Atom{atom.Main, atom.Article} {
		var found []*html.Node
		collectElements(doc, a, &found, 2)
		if len(found) == 1 && len(strings.TrimSpace(nodeText(found[0]))) >= htmlMinMainText {
			return found[0]
		}
	}
	return doc
}

// collectElements appends up to limit elements of kind a below n.
func collectElements(n *html.Node, a atom.Atom, out *[]*html.Node, limit int) {
	for c := n.FirstChild; c != nil && len(*out) < limit; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if c.DataAtom == a {
			*out = append(*out, c)
			continue // a nested one does not make the page ambiguous
		}
		collectElements(c, a, out, limit)
	}
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	var found []*html.Node
	collectElements(n, a, &found, 1)
	if len(found) == 0 {
		return nil
	}
	return found[0]
}

// nodeText is the text below n (nil gives "").
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return sb.String()
}

// decodeText converts body to valid UTF-8. A charset the server or the
// page declares (header, BOM, <meta>) is honoured, except that a body that
// is already valid UTF-8 is taken as UTF-8 when nothing was certain: the
// library's guess looks at the first KiB only, and a page of ASCII there
// and UTF-8 later would be mangled as Windows-1252.
func decodeText(body []byte, contentType string) string {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name != "utf-8" && (certain || !utf8.Valid(trimPartialRune(body))) {
		if out, err := enc.NewDecoder().Bytes(body); err == nil {
			body = out
		}
	}
	s := strings.TrimPrefix(string(body), utf8BOM)
	return strings.ToValidUTF8(s, "\uFFFD")
}

// trimPartialRune drops a UTF-8 sequence cut off at the end of b, which a
// body truncated at the size cap may have.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// pageText is the page as text: markdown for HTML, the body for text
// types. Binary content is an error Result.
func pageText(ctx context.Context, page *fetchedPage) (title, text string, r *Result) {
	mt := page.contentType
	head := page.body[:min(len(page.body), sniffLen)]
	switch {
	case isHTMLType(mt):
		title, md, err := htmlToMarkdown(ctx, []byte(decodeText(page.body, page.rawType)), page.finalURL.String())
		if err != nil {
			res := Errorf("WEB_FETCH_PROCESSING_ERROR", "Converting the HTML of %s to markdown failed: %v.", page.finalURL, err)
			return "", "", &res
		}
		return title, md, nil
	case isTextType(mt):
		return "", decodeText(page.body, page.rawType), nil
	case isBinaryType(mt) || looksBinary(head, !page.truncated && len(head) == len(page.body)):
		res := Errorf("WEB_FETCH_UNSUPPORTED_CONTENT",
			"%s is %s content (%s), which web_fetch cannot read; it reads HTML and text (plain text, markdown, JSON, XML) only.",
			page.finalURL, orUnknown(mt), humanSize(int64(len(page.body))))
		return "", "", &res
	}
	// An unknown or generic type whose bytes are text: a raw file served
	// as application/octet-stream, say.
	return "", decodeText(page.body, page.rawType), nil
}

func orUnknown(mt string) string {
	if mt == "" {
		return "unknown"
	}
	return mt
}

func isHTMLType(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

func isTextType(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/x-shellscript", "application/graphql", "application/sql",
		"application/x-ndjson", "application/jsonl":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || strings.HasSuffix(mt, "+yaml")
}

func isBinaryType(mt string) bool {
	for _, p := range []string{"image/", "audio/", "video/", "font/", "model/"} {
		if strings.HasPrefix(mt, p) {
			return true
		}
	}
	switch mt {
	case "application/pdf", "application/zip", "application/gzip", "application/x-gzip", "application/x-tar",
		"application/x-7z-compressed", "application/x-rar-compressed", "application/vnd.rar", "application/wasm",
		"application/x-bzip2", "application/x-xz", "application/zstd", "application/java-archive",
		"application/x-executable", "application/x-mach-binary", "application/x-msdownload", "application/msword":
		return true
	}
	return strings.HasPrefix(mt, "application/vnd.openxmlformats") || strings.HasPrefix(mt, "application/vnd.ms-")
}

// humanSize formats n bytes for people: "812 B", "12.3 KB", "5.0 MB".
func humanSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1000*1000))
}
