// XML request bodies, parsed with fast-xml-parser: no DTDs, references decoded, namespace prefixes dropped,
// values kept as text. Callers name the elements that may repeat and the error a bad body gets.
// Configuration documents are read trimmed (parseXmlBody); documents that carry object keys, whose
// spaces are significant, exactly as sent (parseExactXml).

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { S3Error, type S3ErrorCode } from './errors/errors.js';

export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

const parsers = new Map<string, XMLParser>();

function parserFor(arrays: readonly string[]): XMLParser {
  const id = arrays.join(',');
  let p = parsers.get(id);
  if (!p) {
    const repeat = new Set(arrays);
    p = new XMLParser({
      ignoreAttributes: false,
      removeNSPrefix: true,
      // DTDs are refused before parsing, so only the predefined and numeric references remain to
      // decode (a key `a&b` arrives as `a&amp;b`); htmlEntities is what decodes `&#x…;`
      processEntities: true,
      htmlEntities: true,
      parseTagValue: false,
      trimValues: true,
      isArray: (name) => repeat.has(name),
    });
    parsers.set(id, p);
  }
  return p;
}

/** The root element `root` of `xml`; `error` (MalformedXML by default) when not well-formed or another root. */
export function parseXmlBody(xml: string, root: string, arrays: readonly string[] = [], error: S3ErrorCode = 'MalformedXML'): XmlNode {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new S3Error(error);
  let doc: unknown;
  try {
    doc = parserFor(arrays).parse(xml, true);
  } catch {
    throw new S3Error(error);
  }
  const node = (doc as XmlNode)[root];
  if (node === undefined) throw new S3Error(error);
  return typeof node === 'object' && !Array.isArray(node) ? node : {};
}

/** Text content of an element (attributes ignored); undefined when absent or not a leaf. */
export function xmlTextOf(v: XmlValue | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (v && !Array.isArray(v) && typeof v['#text'] === 'string') return v['#text'];
  if (v && !Array.isArray(v) && Object.keys(v).every((k) => k.startsWith('@_'))) return '';
  return undefined;
}

/** An xs:boolean element (`true`/`false` in any case, `1`/`0`, as AWS takes them); undefined when absent, MalformedXML otherwise. */
export function xmlBooleanOf(v: XmlValue | undefined): boolean | undefined {
  const text = xmlTextOf(v);
  if (text === undefined) return undefined;
  const t = text.trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw new S3Error('MalformedXML');
}

export function xmlChildren(v: XmlValue | undefined): XmlNode[] {
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => (typeof x === 'object' && !Array.isArray(x) ? x : {}));
}

/** Elements of the key-bearing documents (CompleteMultipartUpload, Delete, Tagging) that may repeat. */
const REPEATED = new Set(['Part', 'Object', 'Tag']);

const exactParser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  htmlEntities: true,
  isArray: (name) => REPEATED.has(name),
});

/** The root element's content, text kept exactly (keys may have spaces); `code` when not well-formed or not rooted at `root`. */
export function parseExactXml(body: Buffer, root: string, code: S3ErrorCode = 'MalformedXML'): XmlNode {
  const text = body.toString('utf8');
  // S3's schemas have no DTD; refusing one also refuses entity-expansion bombs
  if (text.trim() === '' || /<!DOCTYPE/i.test(text) || XMLValidator.validate(text) !== true) throw new S3Error(code);
  let tree: XmlNode;
  try {
    tree = exactParser.parse(text) as XmlNode;
  } catch {
    throw new S3Error(code);
  }
  const content = tree[root];
  if (content === undefined) throw new S3Error(code);
  if (typeof content === 'string') return {};
  if (Array.isArray(content)) throw new S3Error(code);
  return content;
}

/** Text of a child element; undefined when absent; `code` when it is not text. */
export function textOf(node: XmlNode, name: string, code: S3ErrorCode = 'MalformedXML'): string | undefined {
  const v = node[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  // an empty element with only whitespace children parses as an object holding '#text'
  if (!Array.isArray(v) && Object.keys(v).every((k) => k === '#text')) return typeof v['#text'] === 'string' ? v['#text'] : '';
  throw new S3Error(code);
}

/** Repeated child elements (each an element node). */
export function childrenOf(node: XmlNode, name: string, code: S3ErrorCode = 'MalformedXML'): XmlNode[] {
  const v = node[name];
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((item) => {
    if (typeof item === 'string') return {};
    if (Array.isArray(item)) throw new S3Error(code);
    return item;
  });
}
