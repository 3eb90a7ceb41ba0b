import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token } from "marked";

/** Every token of a markdown token tree, depth first: inline tokens, list items and table cells included. */
function* walk(tokens: ReadonlyArray<Token>): Generator<Token> {
  for (const token of tokens) {
    yield token;
    if ("tokens" in token && Array.isArray(token.tokens)) yield* walk(token.tokens as Token[]);
    if (token.type === "list") yield* walk(token.items as Token[]);
    if (token.type === "table") {
      for (const cell of [...token.header, ...token.rows.flat()]) yield* walk(cell.tokens);
    }
  }
}

/** A heading's text as GitHub reads it to make its anchor: the text of code spans and links, without markup. */
function plainText(tokens: ReadonlyArray<Token>): string {
  return tokens.map((token) => {
    if ("tokens" in token && Array.isArray(token.tokens) && token.tokens.length > 0) return plainText(token.tokens as Token[]);
    if (token.type === "html") return "";
    return "text" in token && typeof token.text === "string" ? token.text : "";
  }).join("");
}

/**
 * The anchors GitHub gives a markdown file: one per heading, by github-slugger (GitHub's rules:
 * lower case, punctuation dropped, spaces to hyphens, a repeated heading's anchor suffixed -1, -2),
 * and every `<a id>` or `<a name>` of its HTML.
 */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const token of walk(marked.lexer(text))) {
    if (token.type === "heading") anchors.add(slugger.slug(plainText(token.tokens ?? [])));
    if (token.type === "html") {
      for (const match of token.raw.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    }
  }
  return anchors;
}

/** The targets of a markdown file's links and images, as written (code blocks and code spans hold none). */
export function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const token of walk(marked.lexer(text))) {
    if (token.type === "link" || token.type === "image") links.push(token.href);
  }
  return links;
}

/**
 * The relative links of `file` (a path from `root`, its markdown `text`) that do not resolve: a
 * file or folder that does not exist or lies outside `root`, or an anchor that is not one of its
 * target's (or, for `#anchor` alone, the file's own). Links with a scheme (`https:`, `mailto:`) are
 * not checked.
 */
export function brokenLinks(root: string, file: string, text: string): string[] {
  const own = anchorsOf(text);
  const anchorsCache = new Map<string, Set<string>>();
  return linksOf(text).flatMap((href) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//")) return [];
    const hash = href.indexOf("#");
    const path = decodeURI(hash < 0 ? href : href.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(href.slice(hash + 1));
    const shown = `${file}: ${href}`;
    if (path === "") return anchor === undefined || own.has(anchor) ? [] : [`${shown}: no heading or anchor "${anchor}" in ${file}`];
    const target = resolve(root, dirname(file), path);
    if (relative(root, target).startsWith("..")) return [`${shown}: ${relative(root, target)} is outside the repository`];
    if (!existsSync(target)) return [`${shown}: ${relative(root, target)} does not exist`];
    if (anchor === undefined) return [];
    if (statSync(target).isDirectory()) return [`${shown}: an anchor into a folder`];
    if (!target.endsWith(".md")) return [`${shown}: an anchor into a file that is not markdown`];
    const anchors = anchorsCache.get(target) ?? anchorsOf(readFileSync(target, "utf8"));
    anchorsCache.set(target, anchors);
    return anchors.has(anchor) ? [] : [`${shown}: no heading or anchor "${anchor}" in ${relative(root, target)}`];
  });
}
