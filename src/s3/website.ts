// A bucket's static website configuration (AWS *PutBucketWebsite*, *Configuring a webpage
// redirect*, *Configuring redirection rules*): parsed and checked at put time, stored with the
// bucket, rendered back by GetBucketWebsite. The refusals and their wording follow S3 as captured
// by peers' conformance suites (InvalidRequest for rule errors, InvalidArgument for the documents).

import { S3Error } from './errors/errors.js';
import { doc, el } from './xml.js';
import { parseXmlBody, xmlChildren, xmlTextOf, type XmlNode } from './xml-input.js';

export const MAX_WEBSITE_BODY = 64 * 1024;
/** S3 allows 50 routing rules per website configuration */
const MAX_ROUTING_RULES = 50;

export interface WebsiteRedirect {
  hostName?: string;
  protocol?: 'http' | 'https';
  replaceKeyPrefixWith?: string;
  replaceKeyWith?: string;
  httpRedirectCode?: string;
}

export interface WebsiteRoutingRule {
  condition?: { keyPrefixEquals?: string; httpErrorCodeReturnedEquals?: string };
  redirect: WebsiteRedirect;
}

export interface WebsiteConfiguration {
  indexDocument?: string;
  errorDocument?: string;
  redirectAllRequestsTo?: { hostName: string; protocol?: 'http' | 'https' };
  routingRules?: WebsiteRoutingRule[];
}

const invalidRequest = (message: string) => new S3Error('InvalidRequest', {}, { message });

function protocolOf(node: XmlNode): 'http' | 'https' | undefined {
  const protocol = xmlTextOf(node.Protocol);
  if (protocol === undefined) return undefined;
  if (protocol !== 'http' && protocol !== 'https') {
    throw new S3Error('InvalidArgument', { ArgumentName: 'Protocol', ArgumentValue: protocol }, {
      message: 'Invalid protocol, protocol can be http or https. If not defined the protocol will be selected automatically.',
    });
  }
  return protocol;
}

/** A status code element: digits in `low`..`high`, or InvalidRequest with S3's wording. */
function statusOf(text: string, redirect: boolean): string {
  const code = /^\d{3}$/.test(text) ? Number(text) : NaN;
  const ok = redirect ? code > 300 && code < 400 : code >= 400 && code < 600;
  if (!ok) {
    throw invalidRequest(redirect
      ? `The provided HTTP redirect code (${text}) is not valid. Valid codes are 3XX except 300.`
      : `The provided HTTP error code (${text}) is not valid. Valid codes are 4XX or 5XX.`);
  }
  return text;
}

function routingRuleOf(node: XmlNode): WebsiteRoutingRule {
  const rule: WebsiteRoutingRule = { redirect: {} };
  if (node.Condition !== undefined) {
    const c = xmlChildren(node.Condition)[0]!;
    const keyPrefixEquals = xmlTextOf(c.KeyPrefixEquals);
    const errorCode = xmlTextOf(c.HttpErrorCodeReturnedEquals);
    if (keyPrefixEquals === undefined && errorCode === undefined) {
      throw invalidRequest("Condition cannot be empty. To redirect all requests without a condition, the condition element shouldn't be present.");
    }
    rule.condition = {};
    if (keyPrefixEquals !== undefined) rule.condition.keyPrefixEquals = keyPrefixEquals;
    if (errorCode !== undefined) rule.condition.httpErrorCodeReturnedEquals = statusOf(errorCode, false);
  }
  const r = xmlChildren(node.Redirect)[0];
  if (!r) throw new S3Error('MalformedXML');
  const redirect = rule.redirect;
  const hostName = xmlTextOf(r.HostName);
  if (hostName !== undefined) {
    if (!hostName) throw invalidRequest('The HostName cannot be blank. To redirect within the same domain, the element should not be present.');
    redirect.hostName = hostName;
  }
  const protocol = protocolOf(r);
  if (protocol) redirect.protocol = protocol;
  const prefixWith = xmlTextOf(r.ReplaceKeyPrefixWith);
  const keyWith = xmlTextOf(r.ReplaceKeyWith);
  if (prefixWith !== undefined && keyWith !== undefined) throw invalidRequest('You can only define ReplaceKeyPrefix or ReplaceKey but not both.');
  if (prefixWith !== undefined) redirect.replaceKeyPrefixWith = prefixWith;
  if (keyWith !== undefined) redirect.replaceKeyWith = keyWith;
  const code = xmlTextOf(r.HttpRedirectCode);
  if (code !== undefined) redirect.httpRedirectCode = statusOf(code, true);
  return rule;
}

/** The WebsiteConfiguration body of PutBucketWebsite, checked. */
export function parseWebsiteConfiguration(xml: string): WebsiteConfiguration {
  const root = parseXmlBody(xml, 'WebsiteConfiguration', ['RoutingRule']);
  const config: WebsiteConfiguration = {};
  const redirectAll = xmlChildren(root.RedirectAllRequestsTo)[0];
  if (redirectAll) {
    if (root.IndexDocument !== undefined || root.ErrorDocument !== undefined || root.RoutingRules !== undefined) {
      throw new S3Error('InvalidArgument', { ArgumentName: 'RedirectAllRequestsTo' }, {
        message: 'RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules.',
      });
    }
    const hostName = xmlTextOf(redirectAll.HostName);
    if (!hostName) throw new S3Error('MalformedXML');
    const protocol = protocolOf(redirectAll);
    config.redirectAllRequestsTo = { hostName, ...(protocol ? { protocol } : {}) };
    return config;
  }
  const index = root.IndexDocument === undefined ? undefined : xmlTextOf(xmlChildren(root.IndexDocument)[0]?.Suffix);
  if (index === undefined) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'IndexDocument' }, {
      message: 'A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty',
    });
  }
  if (index === '' || index.includes('/')) {
    throw new S3Error('InvalidArgument', { ArgumentName: 'IndexDocument', ArgumentValue: index }, { message: 'The IndexDocument Suffix is not well formed' });
  }
  config.indexDocument = index;
  if (root.ErrorDocument !== undefined) {
    const key = xmlTextOf(xmlChildren(root.ErrorDocument)[0]?.Key);
    if (!key) throw new S3Error('MalformedXML');
    config.errorDocument = key;
  }
  if (root.RoutingRules !== undefined) {
    const rules = xmlChildren(xmlChildren(root.RoutingRules)[0]?.RoutingRule);
    if (rules.length === 0) throw new S3Error('MalformedXML');
    if (rules.length > MAX_ROUTING_RULES) {
      throw invalidRequest(`${rules.length} routing rules provided, the number of routing rules in a website configuration is limited to ${MAX_ROUTING_RULES}.`);
    }
    config.routingRules = rules.map(routingRuleOf);
  }
  return config;
}

function redirectXml(r: WebsiteRedirect): string {
  let xml = '';
  if (r.protocol) xml += el('Protocol', r.protocol);
  if (r.hostName !== undefined) xml += el('HostName', r.hostName);
  if (r.replaceKeyPrefixWith !== undefined) xml += el('ReplaceKeyPrefixWith', r.replaceKeyPrefixWith);
  if (r.replaceKeyWith !== undefined) xml += el('ReplaceKeyWith', r.replaceKeyWith);
  if (r.httpRedirectCode !== undefined) xml += el('HttpRedirectCode', r.httpRedirectCode);
  return xml;
}

/** GetBucketWebsite's body, elements in S3's order. */
export function renderWebsiteConfiguration(c: WebsiteConfiguration): string {
  let xml = '';
  if (c.redirectAllRequestsTo) {
    const r = c.redirectAllRequestsTo;
    xml += `<RedirectAllRequestsTo>${el('HostName', r.hostName)}${r.protocol ? el('Protocol', r.protocol) : ''}</RedirectAllRequestsTo>`;
  }
  if (c.indexDocument !== undefined) xml += `<IndexDocument>${el('Suffix', c.indexDocument)}</IndexDocument>`;
  if (c.errorDocument !== undefined) xml += `<ErrorDocument>${el('Key', c.errorDocument)}</ErrorDocument>`;
  if (c.routingRules) {
    xml += '<RoutingRules>';
    for (const rule of c.routingRules) {
      xml += '<RoutingRule>';
      const cond = rule.condition;
      if (cond) {
        xml += '<Condition>';
        if (cond.httpErrorCodeReturnedEquals !== undefined) xml += el('HttpErrorCodeReturnedEquals', cond.httpErrorCodeReturnedEquals);
        if (cond.keyPrefixEquals !== undefined) xml += el('KeyPrefixEquals', cond.keyPrefixEquals);
        xml += '</Condition>';
      }
      xml += `<Redirect>${redirectXml(rule.redirect)}</Redirect></RoutingRule>`;
    }
    xml += '</RoutingRules>';
  }
  return doc('WebsiteConfiguration', xml);
}
