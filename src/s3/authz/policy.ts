// Bucket policies (AWS *IAM JSON policy elements reference*, *Policy evaluation logic*, *Amazon S3
// condition keys*): validated and compiled once at PutBucketPolicy (or first use after a restart),
// so that a request only runs precompiled matchers.

import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { S3Error } from '../errors/errors.js';

export const MAX_POLICY_BYTES = 20 * 1024;
const VERSIONS = new Set(['2012-10-17', '2008-10-17']);

/** Who is asking, as a policy sees it. */
export interface PolicyPrincipal {
  anonymous: boolean;
  accountId?: string;
  canonicalId?: string;
}

/** Request facts for Condition blocks; keys are lower-cased (condition keys are case-insensitive). */
export type ConditionValues = (key: string) => string | readonly string[] | undefined;

interface CompiledStatement {
  allow: boolean;
  principal: (p: PolicyPrincipal) => boolean;
  action: (action: string) => boolean;
  resource: (arn: string) => boolean;
  conditions: Array<(values: ConditionValues) => boolean>;
  /** grants to everyone without a condition that pins the caller (AWS *The meaning of "public"*) */
  public: boolean;
}

export interface CompiledPolicy {
  statements: CompiledStatement[];
  /** some Allow statement is public (GetBucketPolicyStatus, BlockPublicPolicy) */
  isPublic: boolean;
  /** principal (canonical id, '' for anonymous) → action → the statements naming both, so a request only tests resources and conditions */
  relevant: Map<string, Map<string, CompiledStatement[]>>;
}

export type PolicyVerdict = 'deny' | 'allow' | 'allow-public' | 'none';

function malformed(message: string): never {
  throw new S3Error('MalformedPolicy', {}, { message });
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

function strings(v: unknown, what: string): string[] {
  const out = list(v);
  if (out.length === 0 || out.some((s) => typeof s !== 'string')) malformed(`Policy has an invalid ${what}`);
  return out as string[];
}

/** IAM wildcards: `*` any run, `?` one character. */
export function wildcardRegExp(pattern: string, ignoreCase: boolean): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, ignoreCase ? 'si' : 's');
}

/** One pattern as a predicate: exact, `prefix*`, or a RegExp for anything else. */
function matcher(pattern: string, ignoreCase: boolean): (s: string) => boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const star = p.indexOf('*');
  if (!p.includes('?') && (star < 0 || star === p.length - 1)) {
    if (star < 0) return ignoreCase ? (s) => s.toLowerCase() === p : (s) => s === p;
    const prefix = p.slice(0, -1);
    return ignoreCase ? (s) => s.toLowerCase().startsWith(prefix) : (s) => s.startsWith(prefix);
  }
  const re = wildcardRegExp(pattern, ignoreCase);
  return (s) => re.test(s);
}

function anyOf(patterns: string[], ignoreCase: boolean): (s: string) => boolean {
  if (patterns.includes('*')) return () => true;
  const tests = patterns.map((p) => matcher(p, ignoreCase));
  return tests.length === 1 ? tests[0]! : (s) => tests.some((t) => t(s));
}

// --- Principal --------------------------------------------------------------------------------

const ACCOUNT_ARN = /^arn:aws:iam::(\d{12}):(root|user\/.+|role\/.+)$/;

function compilePrincipal(v: unknown): { match: (p: PolicyPrincipal) => boolean; everyone: boolean } {
  if (v === '*') return { match: () => true, everyone: true };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) malformed('Invalid principal in policy');
  const accounts = new Set<string>();
  const canonical = new Set<string>();
  let everyone = false;
  for (const [kind, value] of Object.entries(v as Record<string, unknown>)) {
    for (const id of strings(value, 'principal')) {
      if (kind === 'AWS') {
        if (id === '*') everyone = true;
        else if (/^\d{12}$/.test(id)) accounts.add(id);
        else {
          const m = ACCOUNT_ARN.exec(id);
          if (!m) malformed('Invalid principal in policy');
          accounts.add(m[1]!);
        }
      } else if (kind === 'CanonicalUser') {
        if (!/^[0-9a-f]{64}$/.test(id)) malformed('Invalid principal in policy');
        canonical.add(id);
      } else if (kind === 'Service' || kind === 'Federated') {
        // AWS services (log delivery, …) and federated identities are valid principals that no
        // caller of this server ever is: the statement stays, matching nobody
        if (id.length === 0) malformed('Invalid principal in policy');
      } else malformed('Invalid principal in policy');
    }
  }
  if (everyone) return { match: () => true, everyone: true };
  return {
    match: (p) => !p.anonymous && ((p.accountId !== undefined && accounts.has(p.accountId)) || (p.canonicalId !== undefined && canonical.has(p.canonicalId))),
    everyone: false,
  };
}

// --- Conditions -------------------------------------------------------------------------------

/** An operator given one expected value, compiled once: the test of an actual value. */
type Operator = (expected: string) => (actual: string) => boolean;

const num = (s: string) => (/^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : NaN);
// the request's time comes as the same string for a millisecond (request.ts): parse it once
let lastDateText = '';
let lastDate = NaN;
function date(s: string): number {
  if (s === lastDateText) return lastDate;
  const d = /^\d+$/.test(s) ? Number(s) * 1000 : Date.parse(s);
  lastDateText = s;
  lastDate = d;
  return d;
}
function expectedDate(e: string): number {
  const d = date(e);
  if (Number.isNaN(d)) malformed(`Invalid Condition value: ${e}`);
  return d;
}
const equals: Operator = (e) => (a) => a === e;
const equalsIgnoreCase: Operator = (e) => {
  const lower = e.toLowerCase();
  return (a) => a.toLowerCase() === lower;
};
const like: Operator = (e) => matcher(e, false);
/** Operators that compare numbers read from both values: `read` the request's, `readExpected` the policy's (it may refuse one). */
const compared =
  (read: (s: string) => number, readExpected: (s: string) => number) =>
  (cmp: (a: number, e: number) => boolean): Operator =>
  (e) => {
    const expected = readExpected(e);
    return (a) => cmp(read(a), expected);
  };
const numeric = compared(num, num);
const dated = compared(date, expectedDate);
const eq = (a: number, e: number) => a === e;
const lt = (a: number, e: number) => a < e;
const le = (a: number, e: number) => a <= e;
const gt = (a: number, e: number) => a > e;
const ge = (a: number, e: number) => a >= e;

const OPERATORS: Record<string, { operator: Operator; negated?: boolean }> = {
  StringEquals: { operator: equals },
  StringNotEquals: { operator: equals, negated: true },
  StringEqualsIgnoreCase: { operator: equalsIgnoreCase },
  StringNotEqualsIgnoreCase: { operator: equalsIgnoreCase, negated: true },
  StringLike: { operator: like },
  StringNotLike: { operator: like, negated: true },
  NumericEquals: { operator: numeric(eq) },
  NumericNotEquals: { operator: numeric(eq), negated: true },
  NumericLessThan: { operator: numeric(lt) },
  NumericLessThanEquals: { operator: numeric(le) },
  NumericGreaterThan: { operator: numeric(gt) },
  NumericGreaterThanEquals: { operator: numeric(ge) },
  DateEquals: { operator: dated(eq) },
  DateNotEquals: { operator: dated(eq), negated: true },
  DateLessThan: { operator: dated(lt) },
  DateLessThanEquals: { operator: dated(le) },
  DateGreaterThan: { operator: dated(gt) },
  DateGreaterThanEquals: { operator: dated(ge) },
  Bool: { operator: equalsIgnoreCase },
  ArnEquals: { operator: equals },
  ArnLike: { operator: like },
  ArnNotEquals: { operator: equals, negated: true },
  ArnNotLike: { operator: like, negated: true },
};

const IPV4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i;

/** IPv4 (also IPv4-mapped IPv6, as a dual-stack socket reports an IPv4 peer) as a 32-bit number, or -1. */
function ipv4ToInt(ip: string): number {
  const m = IPV4.exec(ip);
  if (!m) return -1;
  let v = 0;
  for (let i = 1; i <= 4; i++) {
    const octet = Number(m[i]);
    if (octet > 255) return -1;
    v = v * 256 + octet;
  }
  return v;
}

function ipTest(values: string[]): (a: string) => boolean {
  const v4: Array<[base: number, size: number]> = [];
  const v6 = new BlockList();
  for (const v of values) {
    const [ip, bits] = v.split('/');
    const type = isIPv4(ip ?? '') ? 'ipv4' : isIPv6(ip ?? '') ? 'ipv6' : undefined;
    if (!type) malformed(`Invalid Condition value: ${v}`);
    const prefix = bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (type === 'ipv4' ? 32 : 128)) malformed(`Invalid Condition value: ${v}`);
    if (type === 'ipv4') {
      const size = 2 ** (32 - prefix);
      v4.push([ipv4ToInt(ip!) - (ipv4ToInt(ip!) % size), size]);
    } else v6.addSubnet(ip!, prefix, 'ipv6');
  }
  const test = (a: string): boolean => {
    const n = ipv4ToInt(a);
    if (n >= 0) return v4.some(([base, size]) => n >= base && n < base + size);
    return isIPv6(a) && v6.check(a, 'ipv6');
  };
  // the same few peers ask again and again: remember their answers (bounded)
  const seen = new Map<string, boolean>();
  return (a) => {
    let hit = seen.get(a);
    if (hit === undefined) {
      hit = test(a);
      if (seen.size >= 1024) seen.clear();
      seen.set(a, hit);
    }
    return hit;
  };
}

/** Keys whose fixed value makes an Allow non-public (AWS *Blocking public access*, "The meaning of public"). */
const PINNING_KEYS = new Set([
  'aws:sourceip', 'aws:sourcearn', 'aws:sourcevpc', 'aws:sourcevpce', 'aws:sourceaccount', 'aws:sourceowner',
  'aws:principalaccount', 'aws:principalorgid', 'aws:principalarn', 'aws:userid', 's3:dataaccesspointaccount',
]);

function compileCondition(operatorName: string, block: unknown): { tests: Array<(v: ConditionValues) => boolean>; pins: boolean } {
  let op = operatorName;
  let setMode: 'any' | 'all' | undefined;
  if (op.startsWith('ForAnyValue:')) (setMode = 'any'), (op = op.slice(12));
  else if (op.startsWith('ForAllValues:')) (setMode = 'all'), (op = op.slice(13));
  const ifExists = op.endsWith('IfExists') && op !== 'IfExists';
  if (ifExists) op = op.slice(0, -8);
  if (typeof block !== 'object' || block === null || Array.isArray(block)) malformed(`Invalid Condition block: ${operatorName}`);
  const tests: Array<(v: ConditionValues) => boolean> = [];
  let pins = false;
  for (const [rawKey, rawExpected] of Object.entries(block as Record<string, unknown>)) {
    const key = rawKey.toLowerCase();
    const expected = list(rawExpected).map((e) => {
      if (typeof e !== 'string' && typeof e !== 'number' && typeof e !== 'boolean') malformed(`Invalid Condition value for ${rawKey}`);
      return String(e);
    });
    if (op === 'Null') {
      const wantAbsent = expected[0]!.toLowerCase() === 'true';
      tests.push((v) => (v(key) === undefined) === wantAbsent);
      continue;
    }
    let one: (actual: string) => boolean;
    let negated = false;
    if (op === 'IpAddress' || op === 'NotIpAddress') {
      const inRange = ipTest(expected);
      one = inRange;
      negated = op === 'NotIpAddress';
      if (PINNING_KEYS.has(key) && !negated) pins = true;
    } else {
      const o = OPERATORS[op];
      if (!o) malformed(`Invalid Condition type : ${operatorName}`);
      negated = o.negated ?? false;
      const each = expected.map(o.operator);
      one = each.length === 1 ? each[0]! : (a) => each.some((t) => t(a));
      if (PINNING_KEYS.has(key) && !negated && !expected.some((e) => e.includes('*'))) pins = true;
    }
    // a missing key: negated operators hold, the others do not; …IfExists holds (AWS *Condition operators*)
    tests.push((v) => {
      const actual = v(key);
      if (actual === undefined) return ifExists || negated || setMode === 'all';
      if (typeof actual === 'string') return one(actual) !== negated;
      if (setMode === 'all') return actual.every((a) => one(a) !== negated);
      // ForAnyValue: some request value passes on its own (for a negated operator: matches none)
      if (setMode === 'any') return actual.some((a) => one(a) !== negated);
      return actual.some(one) !== negated;
    });
  }
  return { tests, pins };
}

// --- Statements -------------------------------------------------------------------------------

const S3_ACTION = /^s3:[A-Za-z*?]+$/;

function compileStatement(s: unknown, bucket: string): CompiledStatement {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) malformed('Statement is not an object');
  const st = s as Record<string, unknown>;
  for (const k of Object.keys(st)) {
    if (!['Sid', 'Effect', 'Principal', 'NotPrincipal', 'Action', 'NotAction', 'Resource', 'NotResource', 'Condition'].includes(k)) {
      malformed(`Unknown field ${k}`);
    }
  }
  if (st['Effect'] !== 'Allow' && st['Effect'] !== 'Deny') malformed('Invalid effect');
  const allow = st['Effect'] === 'Allow';
  if ((st['Principal'] === undefined) === (st['NotPrincipal'] === undefined)) malformed('Statement must have exactly one of Principal or NotPrincipal');
  if ((st['Action'] === undefined) === (st['NotAction'] === undefined)) malformed('Missing required field Action');
  if ((st['Resource'] === undefined) === (st['NotResource'] === undefined)) malformed('Missing required field Resource');

  const principal = compilePrincipal(st['Principal'] ?? st['NotPrincipal']);
  const notPrincipal = st['NotPrincipal'] !== undefined;
  const actions = strings(st['Action'] ?? st['NotAction'], 'action');
  for (const a of actions) if (a !== '*' && !S3_ACTION.test(a)) malformed('Policy has invalid action');
  const actionMatch = anyOf(actions, true);
  const notAction = st['NotAction'] !== undefined;
  const resources = strings(st['Resource'] ?? st['NotResource'], 'resource');
  for (const r of resources) {
    // a bucket policy may only name its own bucket and its objects (AWS: "Policy has invalid resource")
    const m = /^arn:aws:s3:::([^/]*)(\/.*)?$/.exec(r);
    if (r !== '*' && (!m || !wildcardRegExp(m[1]!, false).test(bucket))) malformed('Policy has invalid resource');
  }
  const resourceMatch = anyOf(resources, false);
  const notResource = st['NotResource'] !== undefined;
  const conditions: Array<(v: ConditionValues) => boolean> = [];
  let pinned = false;
  const cond = st['Condition'];
  if (cond !== undefined) {
    if (typeof cond !== 'object' || cond === null || Array.isArray(cond)) malformed('Invalid Condition');
    for (const [op, block] of Object.entries(cond as Record<string, unknown>)) {
      const c = compileCondition(op, block);
      conditions.push(...c.tests);
      pinned ||= c.pins;
    }
  }
  return {
    allow,
    principal: notPrincipal ? (p) => !principal.match(p) : principal.match,
    action: notAction ? (a) => !actionMatch(a) : actionMatch,
    resource: notResource ? (r) => !resourceMatch(r) : resourceMatch,
    conditions,
    public: allow && (principal.everyone || notPrincipal) && !pinned,
  };
}

/** Validates and compiles a policy document; throws MalformedPolicy with AWS's kind of message. */
export function compilePolicy(text: string, bucket: string): CompiledPolicy {
  if (Buffer.byteLength(text) > MAX_POLICY_BYTES) malformed('Policies must be less than 20 KB');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    malformed('This policy contains invalid Json');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) malformed('This policy contains invalid Json');
  const d = doc as Record<string, unknown>;
  if (d['Version'] !== undefined && !VERSIONS.has(d['Version'] as string)) malformed('The policy must contain a valid version string');
  if (d['Statement'] === undefined) malformed('Missing required field Statement');
  const statements = list(d['Statement']).map((s) => compileStatement(s, bucket));
  if (statements.length === 0) malformed('Missing required field Statement');
  return { statements, isPublic: statements.some((s) => s.public), relevant: new Map() };
}

const cache = new Map<string, { text: string; compiled: CompiledPolicy }>();
const CACHE_LIMIT = 1024;

/**
 * The compiled form of a bucket's stored policy, compiled once per bucket and text. Keyed by bucket
 * name: the text is compared, not hashed (each request decodes a fresh copy of the bucket record).
 */
export function compiledPolicy(text: string, bucket: string): CompiledPolicy {
  const hit = cache.get(bucket);
  if (hit && hit.text === text) {
    // keep the caller's copy: the store hands out one cached record, so the next compare is by reference
    hit.text = text;
    return hit.compiled;
  }
  const compiled = compilePolicy(text, bucket);
  if (!hit && cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(bucket, { text, compiled });
  return compiled;
}

/** The statements naming `principal` and `action`, found once per policy, principal and action. */
function relevantStatements(policy: CompiledPolicy, principal: PolicyPrincipal, action: string): CompiledStatement[] {
  // two lookups by strings that already exist (and keep their hashes), none built per request
  const who = principal.anonymous ? '' : (principal.canonicalId ?? `account:${principal.accountId}`);
  let byAction = policy.relevant.get(who);
  let statements = byAction?.get(action);
  if (!statements) {
    statements = policy.statements.filter((s) => s.principal(principal) && s.action(action));
    // principals are this deployment's accounts and actions come from a fixed table: small, but bounded anyway
    if (!byAction && policy.relevant.size < 4096) policy.relevant.set(who, (byAction = new Map()));
    byAction?.set(action, statements);
  }
  return statements;
}

/** Could the policy allow `principal` one of `actions` on some resource (resources and conditions unchecked)? */
export function policyMayAllow(policy: CompiledPolicy, principal: PolicyPrincipal, actions: readonly string[]): boolean {
  return actions.some((action) => relevantStatements(policy, principal, action).some((s) => s.allow));
}

/**
 * Explicit deny wins; otherwise an Allow (flagged public when it came only from public statements).
 * Conditions run last, only for statements whose principal, action and resource match.
 */
export function evaluatePolicy(
  policy: CompiledPolicy,
  principal: PolicyPrincipal,
  action: string,
  arn: string,
  values: ConditionValues,
): PolicyVerdict {
  let verdict: PolicyVerdict = 'none';
  for (const s of relevantStatements(policy, principal, action)) {
    if (!s.resource(arn)) continue;
    if (s.allow && verdict === 'allow') continue;
    if (!conditionsHold(s.conditions, values)) continue;
    if (!s.allow) return 'deny';
    verdict = s.public ? 'allow-public' : 'allow';
  }
  return verdict;
}

// a loop, not every(): no closure per statement on the request path
function conditionsHold(conditions: ReadonlyArray<(values: ConditionValues) => boolean>, values: ConditionValues): boolean {
  for (const c of conditions) if (!c(values)) return false;
  return true;
}
