/**
 * A minimal XML reader for the JUnit reports the tests check: elements, attributes, text and the
 * five predefined entities plus character references. Enough for what converge emits (no DTD, no
 * CDATA, no namespaces); anything else, and any malformed structure, throws, so that a report a real
 * JUnit consumer would reject fails the test too.
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The element's own character data, decoded (children's text not included). */
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;

export function parseXml(source: string): XmlElement {
  let position = 0;
  const fail = (message: string): never => {
    throw new Error(`XML: ${message} at offset ${position}: ${JSON.stringify(source.slice(position, position + 40))}`);
  };
  const skipSpace = () => {
    while (position < source.length && /\s/.test(source[position]!)) position += 1;
  };
  const readName = (): string => {
    const match = NAME.exec(source.slice(position));
    if (!match) fail("expected a name");
    position += match![0].length;
    return match![0];
  };

  // eslint-disable-next-line no-control-regex
  const invalid = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.exec(source);
  if (invalid) {
    position = invalid.index;
    fail("a character XML 1.0 does not allow");
  }
  if (source.startsWith("<?xml")) {
    const end = source.indexOf("?>");
    if (end < 0) fail("unterminated XML declaration");
    position = end + 2;
  }
  skipSpace();

  const readElement = (): XmlElement => {
    if (source[position] !== "<") fail("expected <");
    position += 1;
    const name = readName();
    const attributes: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (source.startsWith("/>", position)) {
        position += 2;
        return { name, attributes, children: [], text: "" };
      }
      if (source[position] === ">") {
        position += 1;
        break;
      }
      const attribute = readName();
      skipSpace();
      if (source[position] !== "=") fail(`expected = after attribute ${attribute}`);
      position += 1;
      skipSpace();
      const quote = source[position];
      if (quote !== '"' && quote !== "'") fail("expected a quoted attribute value");
      const end = source.indexOf(quote!, position + 1);
      if (end < 0) fail("unterminated attribute value");
      const raw = source.slice(position + 1, end);
      if (raw.includes("<")) fail(`attribute ${attribute} holds a raw <`);
      if (attribute in attributes) fail(`attribute ${attribute} given twice`);
      attributes[attribute] = decode(raw, fail);
      position = end + 1;
    }
    const element: XmlElement = { name, attributes, children: [], text: "" };
    for (;;) {
      const next = source.indexOf("<", position);
      if (next < 0) fail(`element ${name} is not closed`);
      const raw = source.slice(position, next);
      if (raw.includes(">")) fail("raw > in text");
      element.text += decode(raw, fail);
      position = next;
      if (source.startsWith("</", position)) {
        position += 2;
        const closing = readName();
        if (closing !== name) fail(`</${closing}> closes <${name}>`);
        skipSpace();
        if (source[position] !== ">") fail("expected >");
        position += 1;
        return element;
      }
      element.children.push(readElement());
    }
  };

  const root = readElement();
  skipSpace();
  if (position !== source.length) fail("content after the root element");
  return root;
}

function decode(raw: string, fail: (message: string) => never): string {
  return raw.replace(/&([^;&]*);?/g, (entity, body: string) => {
    if (!entity.endsWith(";")) fail(`bare & in ${JSON.stringify(raw.slice(0, 40))}`);
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (body in named) return named[body]!;
    const code = body.startsWith("#x") ? Number.parseInt(body.slice(2), 16) : body.startsWith("#") ? Number.parseInt(body.slice(1), 10) : Number.NaN;
    if (!Number.isInteger(code)) fail(`unknown entity &${body};`);
    return String.fromCodePoint(code);
  });
}

/** Every descendant element named `name`, depth first. */
export function elementsNamed(root: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const visit = (element: XmlElement) => {
    if (element.name === name) out.push(element);
    element.children.forEach(visit);
  };
  visit(root);
  return out;
}
