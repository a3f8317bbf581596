// Request XML parsing (s3.md §4): text kept verbatim (spaces, entities, character references),
// namespaces ignored, malformed documents and DTDs refused.

import { describe, expect, it } from 'vitest';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { childrenOf, parseExactXml, parseXmlBody, textOf, xmlBooleanOf } from '../../../src/s3/xml-input.js';

const keysOf = (xml: string) => childrenOf(parseExactXml(Buffer.from(xml), 'Delete'), 'Object').map((o) => textOf(o, 'Key'));
const codeOf = (xml: string) => {
  try {
    parseExactXml(Buffer.from(xml), 'Delete');
    return 'ok';
  } catch (e) {
    return (e as S3Error).code;
  }
};

describe('parseExactXml', () => {
  it('keeps text verbatim: spaces, entities, numeric character references, non-BMP characters', () => {
    expect(keysOf('<?xml version="1.0"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key> a&#x0D;b&#10;c&amp;&lt;d&quot; </Key></Object><Object><Key>\u{1F418}</Key></Object></Delete>'))
      .toEqual([' a\rb\nc&<d" ', '\u{1F418}']);
    expect(keysOf('<Delete><Object><Key>007</Key></Object></Delete>')).toEqual(['007']);
  });
  it('refuses what is not well-formed, another root, and any DTD', () => {
    expect(codeOf('')).toBe('MalformedXML');
    expect(codeOf('<Delete><Object>')).toBe('MalformedXML');
    expect(codeOf('<Other/>')).toBe('MalformedXML');
    expect(codeOf('<!DOCTYPE d [<!ENTITY a "b">]><Delete><Object><Key>&a;</Key></Object></Delete>')).toBe('MalformedXML');
  });
});

describe('xmlBooleanOf', () => {
  const of = (text: string) => xmlBooleanOf(parseXmlBody(`<C><B>${text}</B></C>`, 'C')['B']);
  it('takes true and false in any case, and 1 and 0, as AWS does', () => {
    expect(['true', 'TRUE', ' True ', '1'].map(of)).toEqual([true, true, true, true]);
    expect(['false', 'FALSE', 'False', '0'].map(of)).toEqual([false, false, false, false]);
    expect(xmlBooleanOf(parseXmlBody('<C/>', 'C')['B'])).toBeUndefined();
  });
  it('refuses anything else with MalformedXML', () => {
    for (const text of ['yes', '', 'truth', '2']) {
      expect(() => of(text), text).toThrow(expect.objectContaining({ code: 'MalformedXML' }) as Error);
    }
  });
});
