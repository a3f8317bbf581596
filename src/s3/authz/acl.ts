// The ACL model (s3.md §2.12, §3.10; AWS *Access control list (ACL) overview*): canned ACLs
// expanded to grants, explicit grants from an AccessControlPolicy body or x-amz-grant-* headers,
// and the question "does this ACL give this principal this permission".

import type { CannedAcl } from '../../store/types.js';
import type { AclGrant, AclGrantee, AclPermission, StoredAcl } from '../object-attrs.js';
import { S3Error } from '../errors/errors.js';
import { doc, el, ownerXml } from '../xml.js';
import { parseXmlBody, xmlChildren, xmlTextOf } from '../xml-input.js';
import type { Principal } from '../access.js';

export const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
export const AUTHENTICATED_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';
export const LOG_DELIVERY = 'http://acs.amazonaws.com/groups/s3/LogDelivery';
const GROUPS = new Set([ALL_USERS, AUTHENTICATED_USERS, LOG_DELIVERY]);
const PERMISSIONS: readonly AclPermission[] = ['FULL_CONTROL', 'READ', 'WRITE', 'READ_ACP', 'WRITE_ACP'];
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** x-amz-grant-* header → permission (AWS *PutObjectAcl*, request headers). */
export const GRANT_HEADERS: ReadonlyArray<readonly [string, AclPermission]> = [
  ['x-amz-grant-full-control', 'FULL_CONTROL'],
  ['x-amz-grant-read', 'READ'],
  ['x-amz-grant-write', 'WRITE'],
  ['x-amz-grant-read-acp', 'READ_ACP'],
  ['x-amz-grant-write-acp', 'WRITE_ACP'],
];

/** Resolves grantees by account: unknown ids / e-mails are client errors. */
export interface GranteeDirectory {
  hasCanonicalId(id: string): boolean;
  /** canonical id of the account with this e-mail */
  canonicalIdOfEmail(email: string): string | undefined;
  displayNameOf(id: string): string | undefined;
}

const owner = (id: string): AclGrant => ({ grantee: { type: 'CanonicalUser', id }, permission: 'FULL_CONTROL' });
const group = (uri: string, permission: AclPermission): AclGrant => ({ grantee: { type: 'Group', uri }, permission });

/**
 * The grant set of a canned ACL (AWS *Canned ACL* table) for a resource `ownerId` owns in a bucket
 * `bucketOwnerId` owns: bucket-owner-read / -full-control add the bucket owner when it is another account.
 */
export function cannedGrants(acl: CannedAcl, ownerId: string, bucketOwnerId = ownerId): AclGrant[] {
  const foreign = bucketOwnerId !== ownerId;
  switch (acl) {
    case 'bucket-owner-read':
      return foreign ? [owner(ownerId), { grantee: { type: 'CanonicalUser', id: bucketOwnerId }, permission: 'READ' }] : [owner(ownerId)];
    case 'bucket-owner-full-control':
      return foreign ? [owner(ownerId), owner(bucketOwnerId)] : [owner(ownerId)];
    case 'public-read':
      return [owner(ownerId), group(ALL_USERS, 'READ')];
    case 'public-read-write':
      return [owner(ownerId), group(ALL_USERS, 'READ'), group(ALL_USERS, 'WRITE')];
    case 'authenticated-read':
      return [owner(ownerId), group(AUTHENTICATED_USERS, 'READ')];
    case 'log-delivery-write':
      return [owner(ownerId), group(LOG_DELIVERY, 'WRITE'), group(LOG_DELIVERY, 'READ_ACP')];
    default:
      return [owner(ownerId)];
  }
}

export function effectiveAcl(canned: CannedAcl, stored: StoredAcl | undefined, ownerId: string, bucketOwnerId = ownerId): StoredAcl {
  return stored ?? { owner: ownerId, grants: cannedGrants(canned, ownerId, bucketOwnerId) };
}

function isPublicGrantee(g: AclGrantee): boolean {
  return g.type === 'Group' && (g.uri === ALL_USERS || g.uri === AUTHENTICATED_USERS);
}

/** AWS *Blocking public access*: an ACL is public when it grants anything to AllUsers or AuthenticatedUsers. */
export function isPublicAcl(acl: StoredAcl): boolean {
  return acl.grants.some((g) => isPublicGrantee(g.grantee));
}

function granteeMatches(g: AclGrantee, p: Principal): boolean {
  if (g.type === 'CanonicalUser') return p.kind === 'key' && p.key.account.canonicalId === g.id;
  if (g.uri === ALL_USERS) return true;
  return g.uri === AUTHENTICATED_USERS && p.kind === 'key';
}

/** Does `acl` give `p` the permission? FULL_CONTROL implies all; `ignorePublic` drops public grants (IgnorePublicAcls). */
export function aclAllows(acl: StoredAcl, p: Principal, permission: AclPermission, ignorePublic: boolean): boolean {
  for (const g of acl.grants) {
    if (g.permission !== permission && g.permission !== 'FULL_CONTROL') continue;
    if (ignorePublic && isPublicGrantee(g.grantee)) continue;
    if (granteeMatches(g.grantee, p)) return true;
  }
  return false;
}

// --- x-amz-grant-* headers -------------------------------------------------------------------

function granteeFromSpec(type: string, value: string, dir: GranteeDirectory): AclGrantee {
  switch (type.toLowerCase()) {
    case 'id':
      if (!dir.hasCanonicalId(value)) throw new S3Error('InvalidArgument', { ArgumentName: 'CanonicalUser/ID', ArgumentValue: value }, { message: 'Invalid id' });
      return { type: 'CanonicalUser', id: value };
    case 'uri':
      if (!GROUPS.has(value)) throw new S3Error('InvalidArgument', { ArgumentName: 'Group/URI', ArgumentValue: value }, { message: 'Invalid group uri' });
      return { type: 'Group', uri: value };
    case 'emailaddress': {
      const id = dir.canonicalIdOfEmail(value);
      if (id === undefined) throw new S3Error('UnresolvableGrantByEmailAddress', { EmailAddress: value });
      return { type: 'CanonicalUser', id };
    }
    default:
      throw new S3Error('InvalidArgument', { ArgumentName: 'x-amz-grant', ArgumentValue: type }, { message: 'Argument format not recognized' });
  }
}

/** One grantee of an x-amz-grant-* header: its value quoted, or bare up to the next comma (AWS takes both). */
const GRANT_SPEC = /^\s*(id|uri|emailAddress)\s*=\s*(?:"([^"]*)"|([^",]*?))\s*(?:,|$)/i;

/**
 * Grants of the x-amz-grant-* headers (comma-separated `id="…"`, `uri="…"`, `emailAddress="…"`, quotes optional), plus
 * the owner's FULL_CONTROL as S3 adds it; undefined when none is present. With x-amz-acl too → 400 (s3.md §2.12).
 */
export function grantsFromHeaders(headers: Readonly<Record<string, string>>, ownerId: string, dir: GranteeDirectory): StoredAcl | undefined {
  let grants: AclGrant[] | undefined;
  for (const [name, permission] of GRANT_HEADERS) {
    let rest = headers[name];
    if (rest === undefined) continue;
    if (headers['x-amz-acl'] !== undefined) {
      throw new S3Error('InvalidRequest', {}, { message: 'Specifying both Canned ACLs and Header Grants is not allowed' });
    }
    grants ??= [];
    while (rest.trim()) {
      const m = GRANT_SPEC.exec(rest);
      if (!m) throw new S3Error('InvalidArgument', { ArgumentName: name, ArgumentValue: headers[name] }, { message: 'Argument format not recognized' });
      grants.push({ grantee: granteeFromSpec(m[1]!, m[2] ?? m[3]!, dir), permission });
      rest = rest.slice(m[0].length);
    }
  }
  return grants && { owner: ownerId, grants };
}

// --- AccessControlPolicy XML (s3.md §4.9) ------------------------------------------------------

/** Parses an AccessControlPolicy body; the Owner element must name the resource owner (AWS answers AccessDenied otherwise). */
export function parseAccessControlPolicy(xml: string, ownerId: string, dir: GranteeDirectory): StoredAcl {
  const policy = parseXmlBody(xml, 'AccessControlPolicy', ['Grant'], 'MalformedACLError');
  const malformed = (): never => {
    throw new S3Error('MalformedACLError');
  };
  const ownerIdGiven = xmlTextOf(xmlChildren(policy['Owner'])[0]?.['ID']);
  if (ownerIdGiven !== undefined && ownerIdGiven !== ownerId) throw new S3Error('AccessDenied');
  const list = policy['AccessControlList'];
  if (list === undefined) malformed();
  const grants: AclGrant[] = [];
  for (const g of xmlChildren(xmlChildren(list)[0]?.['Grant'])) {
    const grantee = xmlChildren(g['Grantee'])[0];
    const permission = xmlTextOf(g['Permission']) as AclPermission | undefined;
    if (!grantee || !permission || !PERMISSIONS.includes(permission)) malformed();
    const type = grantee!['@_type'];
    const [spec, element] =
      type === 'CanonicalUser' ? ['id', 'ID'] : type === 'Group' ? ['uri', 'URI'] : type === 'AmazonCustomerByEmail' ? ['emailAddress', 'EmailAddress'] : malformed();
    const value = xmlTextOf(grantee![element]);
    if (!value) malformed();
    grants.push({ grantee: granteeFromSpec(spec, value!, dir), permission: permission! });
  }
  return { owner: ownerId, grants };
}

export function renderAccessControlPolicy(acl: StoredAcl, dir: GranteeDirectory): string {
  let grants = '';
  for (const g of acl.grants) {
    const grantee =
      g.grantee.type === 'CanonicalUser'
        ? `<Grantee xmlns:xsi="${XSI}" xsi:type="CanonicalUser">${el('ID', g.grantee.id)}${el('DisplayName', dir.displayNameOf(g.grantee.id) ?? '')}</Grantee>`
        : `<Grantee xmlns:xsi="${XSI}" xsi:type="Group">${el('URI', g.grantee.uri)}</Grantee>`;
    grants += `<Grant>${grantee}${el('Permission', g.permission)}</Grant>`;
  }
  const ownerEl = ownerXml({ id: acl.owner, displayName: dir.displayNameOf(acl.owner) ?? '' });
  return doc('AccessControlPolicy', `${ownerEl}<AccessControlList>${grants}</AccessControlList>`);
}

