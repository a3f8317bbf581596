// The website endpoint's decisions (src/s3/website-routing.ts): the bucket a Host names, the key a
// path asks for, the index document, which routing rule applies before and after the read, where
// its redirect points (AWS *Configuring redirection rules*), and S3's HTML error page, golden.

import { describe, expect, it } from 'vitest';
import { parseWebsiteConfiguration } from '../../../src/s3/website.js';
import * as routing from '../../../src/s3/website-routing.js';

const { documentKeyOf, folderRedirect, matchRoutingRule, redirectAll, ruleRedirect, websiteBucketOf, websiteErrorPage, websiteKeyOf } = routing;

const origin = { protocol: 'http' as const, host: 'site.web.test:9002' };

/** The routing rules of a website configuration in S3's XML, parsed as PutBucketWebsite parses them. */
function rules(xml: string) {
  const config = parseWebsiteConfiguration(
    `<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument><RoutingRules>${xml}</RoutingRules></WebsiteConfiguration>`,
  );
  return config.routingRules!;
}

describe('website host and key', () => {
  it('takes the bucket from <bucket>.<domain>, else the whole host name (CNAME style)', () => {
    const domains = ['web.test', 'example.org'];
    expect(websiteBucketOf('site.web.test:9002', domains)).toBe('site');
    expect(websiteBucketOf('My.Site.WEB.test.', domains)).toBe('my.site');
    expect(websiteBucketOf('www.example.com', domains)).toBe('www.example.com');
    expect(websiteBucketOf('www.example.com:8080', [])).toBe('www.example.com');
    expect(websiteBucketOf('[::1]:9002', [])).toBe('[::1]');
    expect(websiteBucketOf(undefined, domains)).toBeUndefined();
    expect(websiteBucketOf('', domains)).toBeUndefined();
  });

  it('decodes the path into a key and adds the index document to the root and to keys ending in /', () => {
    expect(websiteKeyOf('/')).toBe('');
    expect(websiteKeyOf('/docs/a%20b+c.html')).toBe('docs/a b+c.html');
    expect(websiteKeyOf('/bad%zz')).toBeUndefined();
    expect(websiteKeyOf('nope')).toBeUndefined();
    expect(documentKeyOf('', 'index.html')).toBe('index.html');
    expect(documentKeyOf('docs/', 'index.html')).toBe('docs/index.html');
    expect(documentKeyOf('docs', 'index.html')).toBe('docs');
  });
});

describe('routing rules', () => {
  const set = rules(
    '<RoutingRule><Condition><KeyPrefixEquals>docs/</KeyPrefixEquals></Condition><Redirect><ReplaceKeyPrefixWith>documents/</ReplaceKeyPrefixWith></Redirect></RoutingRule>' +
      '<RoutingRule><Condition><HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals></Condition><Redirect><HostName>example.com</HostName><Protocol>https</Protocol><HttpRedirectCode>302</HttpRedirectCode></Redirect></RoutingRule>' +
      '<RoutingRule><Condition><KeyPrefixEquals>img/</KeyPrefixEquals><HttpErrorCodeReturnedEquals>403</HttpErrorCodeReturnedEquals></Condition><Redirect><ReplaceKeyWith>denied.html</ReplaceKeyWith></Redirect></RoutingRule>' +
      '<RoutingRule><Condition><KeyPrefixEquals>docs/old</KeyPrefixEquals></Condition><Redirect><ReplaceKeyWith>never.html</ReplaceKeyWith></Redirect></RoutingRule>',
  );

  it('takes the first rule that matches, prefix rules before the read, error-code rules after it', () => {
    expect(matchRoutingRule(set, 'docs/old/a.html')).toBe(set[0]); // first match wins over rule 4
    expect(matchRoutingRule(set, 'other.html')).toBeUndefined();
    expect(matchRoutingRule(set, 'other.html', 404)).toBe(set[1]);
    expect(matchRoutingRule(set, 'other.html', 403)).toBeUndefined();
    // both conditions: both must hold
    expect(matchRoutingRule(set, 'img/a.png', 403)).toBe(set[2]);
    expect(matchRoutingRule(set, 'css/a.css', 403)).toBeUndefined();
    // a prefix-only rule does not apply after the read (it would have applied before)
    expect(matchRoutingRule([set[0]!], 'docs/a', 404)).toBeUndefined();
    expect(matchRoutingRule(undefined, 'a')).toBeUndefined();
  });

  it('builds the redirect: the prefix replaced, the key replaced, another host and protocol, the code', () => {
    expect(ruleRedirect(set[0]!, 'docs/a b.html', origin)).toEqual({ status: 301, location: 'http://site.web.test:9002/documents/a%20b.html' });
    expect(ruleRedirect(set[1]!, 'missing/page.html', origin)).toEqual({ status: 302, location: 'https://example.com/missing/page.html' });
    expect(ruleRedirect(set[2]!, 'img/a.png', origin)).toEqual({ status: 301, location: 'http://site.web.test:9002/denied.html' });
    // ReplaceKeyPrefixWith without a KeyPrefixEquals puts the prefix before the whole key
    const [prepend] = rules('<RoutingRule><Condition><HttpErrorCodeReturnedEquals>404</HttpErrorCodeReturnedEquals></Condition><Redirect><ReplaceKeyPrefixWith>v2/</ReplaceKeyPrefixWith></Redirect></RoutingRule>');
    expect(ruleRedirect(prepend!, 'x.html', { protocol: 'https', host: 'h.test' })).toEqual({ status: 301, location: 'https://h.test/v2/x.html' });
  });

  it('redirects all requests with the path kept, and a folder to its trailing slash with 302', () => {
    expect(redirectAll({ hostName: 'www.example.org' }, 'a/b c', origin)).toEqual({ status: 301, location: 'http://www.example.org/a/b%20c' });
    expect(redirectAll({ hostName: 'www.example.org', protocol: 'https' }, '', origin)).toEqual({ status: 301, location: 'https://www.example.org/' });
    expect(folderRedirect('docs', origin)).toEqual({ status: 302, location: 'http://site.web.test:9002/docs/' });
  });
});

describe('website error page', () => {
  it("is S3's HTML, escaped, with the custom error document's own failure when there is one", () => {
    const ids = { requestId: 'ABC', hostId: 'host/id' };
    expect(websiteErrorPage('404 Not Found', { code: 'NoSuchKey', message: 'The specified key does not exist.', details: [['Key', '<b>&.html']] }, ids)).toBe(
      '<html>\n<head><title>404 Not Found</title></head>\n<body>\n<h1>404 Not Found</h1>\n<ul>\n' +
        '<li>Code: NoSuchKey</li>\n<li>Message: The specified key does not exist.</li>\n<li>Key: &lt;b&gt;&amp;.html</li>\n' +
        '<li>RequestId: ABC</li>\n<li>HostId: host/id</li>\n</ul>\n<hr/>\n</body>\n</html>\n',
    );
    const page = websiteErrorPage('403 Forbidden', { code: 'AccessDenied', message: 'Access Denied' }, ids, { code: 'AccessDenied', message: 'Access Denied' });
    expect(page).toContain('<h3>An Error Occurred While Attempting to Retrieve a Custom Error Document</h3>\n<ul>\n<li>Code: AccessDenied</li>\n<li>Message: Access Denied</li>\n</ul>\n<hr/>');
  });
});
