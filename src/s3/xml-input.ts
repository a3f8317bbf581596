// XML request bodies, parsed with fast-xml-parser: no DTDs or entities, namespace prefixes dropped,
// values kept as text. Callers name the elements that may repeat and the error a bad body gets.

import { XMLParser } from 'fast-xml-parser';
import { S3Error, type S3ErrorCode } from './errors.js';

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
      processEntities: false,
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

export function xmlChildren(v: XmlValue | undefined): XmlNode[] {
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((x) => (typeof x === 'object' && !Array.isArray(x) ? x : {}));
}
