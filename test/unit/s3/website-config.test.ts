// PutBucketWebsite's body: what is kept, what S3 refuses and with which code and words, and the
// GetBucketWebsite golden string (AWS *PutBucketWebsite*; wording as captured from S3 by peers).

import { describe, expect, it } from 'vitest';
import { S3Error } from '../../../src/s3/errors/errors.js';
import { parseWebsiteConfiguration, renderWebsiteConfiguration } from '../../../src/s3/website.js';

const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const wrap = (inner: string) => `<WebsiteConfiguration ${NS}>${inner}</WebsiteConfiguration>`;
const INDEX = '<IndexDocument><Suffix>index.html</Suffix></IndexDocument>';
const rule = (redirect: string, condition = '') => `<RoutingRules><RoutingRule>${condition}<Redirect>${redirect}</Redirect></RoutingRule></RoutingRules>`;

function refusal(xml: string): { code: string; status: number; message: string } {
  try {
    parseWebsiteConfiguration(xml);
  } catch (e) {
    if (e instanceof S3Error) return { code: e.code, status: e.status, message: e.message };
    throw e;
  }
  throw new Error('accepted');
}

describe('parseWebsiteConfiguration', () => {
  it('keeps index, error document and routing rules, and renders them back in S3 order with escaping', () => {
    const config = parseWebsiteConfiguration(wrap(
      `${INDEX}<ErrorDocument><Key>errors/4&amp;4.html</Key></ErrorDocument>` +
        rule('<HostName>example.com</HostName><Protocol>https</Protocol><ReplaceKeyPrefixWith>new/</ReplaceKeyPrefixWith><HttpRedirectCode>302</HttpRedirectCode>',
          '<Condition><KeyPrefixEquals>old/</KeyPrefixEquals><HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals></Condition>'),
    ));
    expect(config).toEqual({
      indexDocument: 'index.html',
      errorDocument: 'errors/4&4.html',
      routingRules: [{
        condition: { keyPrefixEquals: 'old/', httpErrorCodeReturnedEquals: '404' },
        redirect: { hostName: 'example.com', protocol: 'https', replaceKeyPrefixWith: 'new/', httpRedirectCode: '302' },
      }],
    });
    expect(renderWebsiteConfiguration(config)).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<WebsiteConfiguration ${NS}><IndexDocument><Suffix>index.html</Suffix></IndexDocument>` +
        '<ErrorDocument><Key>errors/4&amp;4.html</Key></ErrorDocument><RoutingRules><RoutingRule><Condition>' +
        '<HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals><KeyPrefixEquals>old/</KeyPrefixEquals></Condition>' +
        '<Redirect><Protocol>https</Protocol><HostName>example.com</HostName><ReplaceKeyPrefixWith>new/</ReplaceKeyPrefixWith>' +
        '<HttpRedirectCode>302</HttpRedirectCode></Redirect></RoutingRule></RoutingRules></WebsiteConfiguration>',
    );
  });

  it('keeps RedirectAllRequestsTo alone', () => {
    const config = parseWebsiteConfiguration(wrap('<RedirectAllRequestsTo><HostName>example.org</HostName><Protocol>http</Protocol></RedirectAllRequestsTo>'));
    expect(config).toEqual({ redirectAllRequestsTo: { hostName: 'example.org', protocol: 'http' } });
    expect(renderWebsiteConfiguration(config)).toContain('<RedirectAllRequestsTo><HostName>example.org</HostName><Protocol>http</Protocol></RedirectAllRequestsTo>');
  });

  it('refuses what S3 refuses', () => {
    expect(refusal(wrap(''))).toEqual({ code: 'InvalidArgument', status: 400, message: 'A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty' });
    expect(refusal(wrap('<IndexDocument><Suffix>a/b.html</Suffix></IndexDocument>'))).toMatchObject({ code: 'InvalidArgument', message: 'The IndexDocument Suffix is not well formed' });
    expect(refusal(wrap(`<RedirectAllRequestsTo><HostName>x</HostName></RedirectAllRequestsTo>${INDEX}`))).toMatchObject({ code: 'InvalidArgument' });
    expect(refusal(wrap(INDEX + rule('<ReplaceKeyWith>a</ReplaceKeyWith><ReplaceKeyPrefixWith>b/</ReplaceKeyPrefixWith>')))).toEqual({
      code: 'InvalidRequest', status: 400, message: 'You can only define ReplaceKeyPrefix or ReplaceKey but not both.',
    });
    expect(refusal(wrap(INDEX + rule('<HttpRedirectCode>300</HttpRedirectCode>')))).toMatchObject({
      code: 'InvalidRequest', message: 'The provided HTTP redirect code (300) is not valid. Valid codes are 3XX except 300.',
    });
    expect(refusal(wrap(INDEX + rule('<HostName>x</HostName>', '<Condition><HttpErrorCodeReturnedEquals>302</HttpErrorCodeReturnedEquals></Condition>')))).toMatchObject({
      code: 'InvalidRequest', message: 'The provided HTTP error code (302) is not valid. Valid codes are 4XX or 5XX.',
    });
    expect(refusal(wrap(INDEX + rule('<HostName>x</HostName>', '<Condition></Condition>')))).toMatchObject({ code: 'InvalidRequest' });
    expect(refusal(wrap(INDEX + rule('<Protocol>ftp</Protocol>')))).toMatchObject({ code: 'InvalidArgument' });
    const many = `<RoutingRules>${'<RoutingRule><Redirect><HostName>x</HostName></Redirect></RoutingRule>'.repeat(51)}</RoutingRules>`;
    expect(refusal(wrap(INDEX + many))).toMatchObject({
      code: 'InvalidRequest', message: '51 routing rules provided, the number of routing rules in a website configuration is limited to 50.',
    });
    expect(refusal('<NotWebsite/>')).toMatchObject({ code: 'MalformedXML', status: 400 });
    expect(refusal(wrap(`${INDEX}<RoutingRules><RoutingRule></RoutingRule></RoutingRules>`))).toMatchObject({ code: 'MalformedXML' });
  });
});
