// XML request bodies (s3.md §4) parsed with fast-xml-parser: well-formedness first, then a plain
// object tree in which text stays text (no number coercion, no trimming: keys may have spaces).

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { S3Error, type S3ErrorCode } from './errors.js';

/** Elements that may repeat, always read as arrays. */
const REPEATED = new Set(['Part', 'Object', 'Tag']);

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  htmlEntities: true,
  isArray: (name) => REPEATED.has(name),
});

export type XmlNode = { [name: string]: XmlValue };
export type XmlValue = string | XmlNode | XmlValue[];

/** The document's root element's content; `code` (MalformedXML by default) when not well-formed or not rooted at `root`. */
export function parseXmlBody(body: Buffer, root: string, code: S3ErrorCode = 'MalformedXML'): XmlNode {
  const text = body.toString('utf8');
  // S3's schemas have no DTD; refusing one also refuses entity-expansion bombs
  if (text.trim() === '' || /<!DOCTYPE/i.test(text) || XMLValidator.validate(text) !== true) throw new S3Error(code);
  let tree: XmlNode;
  try {
    tree = parser.parse(text) as XmlNode;
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
