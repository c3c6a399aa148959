import crypto from 'node:crypto';
import type tls from 'node:tls';
import {
  Client,
  InvalidCredentialsError,
  InvalidDNSyntaxError,
  NoSuchObjectError,
  ResultCodeError,
  type Entry,
} from 'ldapts';
import { adAccountDisabled, equalityFilter, firstRdnValue, groupFilter, userFilter } from './filter.js';
import type { LdapSettings } from './settings.js';

/** Most entries a user search may return: a second match makes the name ambiguous (refused as unknown). */
const USER_SEARCH_LIMIT = 2;
/** Most groups read for one user (a directory with thousands of groups per person is cut here). */
const GROUP_SEARCH_LIMIT = 500;
/** AD's account flags, read when the directory has them. */
const AD_ACCOUNT_CONTROL = 'userAccountControl';
/** The deadline of a whole conversation, in timeouts (connect, StartTLS, binds and searches each have one). */
const CONVERSATION_TIMEOUTS = 4;

/** Why the directory gave no answer: unreachable (network, timeout), TLS (certificate), or configuration. */
export type DirectoryFailure = 'unreachable' | 'tls' | 'config';

/** A failure talking to the directory; `detail` is for the server log only (it may name the server). */
export class DirectoryError extends Error {
  constructor(
    readonly failure: DirectoryFailure,
    readonly detail: string,
  ) {
    super(`directory ${failure}: ${detail}`);
  }
}

/** A person found in the directory. */
export interface DirectoryEntry {
  dn: string;
  /** LDAPUsernameAttribute's value (the name typed when the entry has none). */
  username: string;
  email: string;
  displayName: string;
  /** Group DNs (memberOf and the group search), each followed by its first RDN value (the group's cn). */
  groups: string[];
  /** AD's disabled flag, or a match of LDAPDisabledFilter. */
  disabled: boolean;
}

const TLS_ERROR = /^(ERR_TLS|ERR_SSL|UNABLE_TO|SELF_SIGNED|DEPTH_ZERO|CERT_|HOSTNAME|ERR_OSSL)/;

function classify(err: unknown): DirectoryError {
  if (err instanceof DirectoryError) return err;
  const e = err as { code?: unknown; message?: string };
  const message = e?.message ?? String(err);
  if (typeof e?.code === 'string' && TLS_ERROR.test(e.code)) return new DirectoryError('tls', `${e.code}: ${message}`);
  if (err instanceof ResultCodeError) return new DirectoryError('config', `${err.name}: ${message}`);
  return new DirectoryError('unreachable', message);
}

/** The first value of an attribute as text ('' when absent). */
function first(entry: Entry, attribute: string): string {
  if (!attribute) return '';
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const raw = key === undefined ? undefined : entry[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined ? '' : String(value).trim();
}

/** Every value of an attribute as text. */
function all(entry: Entry, attribute: string): string[] {
  if (!attribute) return [];
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const raw = key === undefined ? undefined : entry[key];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map((v) => String(v).trim()).filter(Boolean);
}

/**
 * The LDAP conversations of a sign-in and of a revalidation, over ldapts: each opens its own connection
 * (ldap:// with optional StartTLS, or ldaps://; certificates verified unless LDAPTLSSkipVerify), binds as the
 * service account (anonymously without one), searches, and closes. Every step has the configured timeout.
 */
export class Directory {
  constructor(private readonly s: LdapSettings) {}

  /**
   * The entry of `username` when `password` binds as it; undefined for an unknown, ambiguous or wrong one (the
   * same work is done either way: a failing bind stands in for the user's). An empty password is never sent: an
   * LDAP bind with a DN and no password is an "unauthenticated bind" that many servers answer as a success.
   */
  async authenticate(username: string, password: string): Promise<DirectoryEntry | undefined> {
    if (!password || !username) return undefined;
    return this.conversation(async (c) => {
      const entry = await this.findOne(c, userFilter(this.s.userFilter, username));
      const person = entry ? await this.read(c, entry, username) : undefined;
      if (!person) {
        // Unknown: the searches a known person costs, then a bind that fails like a wrong password, so both take
        // the same round trips.
        const nobody = `cn=nobody-${crypto.randomBytes(8).toString('hex')},${this.s.baseDn}`;
        await this.readNobody(c, nobody, username);
        await this.bindFails(c, nobody, password);
        return undefined;
      }
      return (await this.bindFails(c, person.dn, password)) ? undefined : person;
    });
  }

  /**
   * The entries whose LDAPUsernameAttribute is one of `usernames`, looked up by the service account; many names
   * in one conversation (one connection, one service bind): each name's entry, or
   * undefined when it is gone. One failure (unreachable, TLS, configuration) fails the whole lookup.
   */
  lookupAll(usernames: readonly string[]): Promise<Map<string, DirectoryEntry | undefined>> {
    return this.conversation(async (c) => {
      const found = new Map<string, DirectoryEntry | undefined>();
      for (const name of usernames) {
        const entry = await this.findOne(c, equalityFilter(this.s.usernameAttribute, name));
        found.set(name, entry ? await this.read(c, entry, name) : undefined);
      }
      return found;
    }, usernames.length);
  }

  private tlsOptions(host: string): tls.ConnectionOptions {
    return {
      ...(this.s.caCert ? { ca: [this.s.caCert] } : {}),
      rejectUnauthorized: !this.s.skipVerify,
      host,
    };
  }

  /** Runs `fn` on a fresh connection; `steps` more lookups than one sign-in's get a timeout each in the deadline. */
  private async conversation<T>(fn: (c: Client) => Promise<T>, steps = 0): Promise<T> {
    const url = new URL(this.s.url);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const ldaps = url.protocol === 'ldaps:';
    const client = new Client({
      url: this.s.url,
      timeout: this.s.timeoutMs,
      connectTimeout: this.s.timeoutMs,
      ...(ldaps ? { tlsOptions: this.tlsOptions(host) } : {}),
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DirectoryError('unreachable', 'no answer in time')),
        this.s.timeoutMs * (CONVERSATION_TIMEOUTS + steps),
      );
    });
    try {
      const talk = async () => {
        if (!ldaps && this.s.startTls) await client.startTLS(this.tlsOptions(host));
        if (this.s.bindDn) {
          try {
            await client.bind(this.s.bindDn, this.s.bindPassword);
          } catch (err) {
            if (err instanceof InvalidCredentialsError)
              throw new DirectoryError('config', 'the service account (LDAPBindDN) was refused');
            throw err;
          }
        }
        return fn(client);
      };
      return await Promise.race([talk(), deadline]);
    } catch (err) {
      throw classify(err);
    } finally {
      clearTimeout(timer);
      client.unbind().catch(() => undefined);
    }
  }

  /** The one entry under LDAPBaseDN matching `filter`; undefined for none or several. */
  private async findOne(c: Client, filter: string): Promise<Entry | undefined> {
    const attributes = [
      this.s.usernameAttribute,
      this.s.emailAttribute,
      this.s.displayNameAttribute,
      this.s.groupAttribute,
      AD_ACCOUNT_CONTROL,
    ].filter(Boolean);
    try {
      const res = await c.search(this.s.baseDn, { scope: 'sub', filter, attributes, sizeLimit: USER_SEARCH_LIMIT });
      return res.searchEntries.length === 1 ? res.searchEntries[0] : undefined;
    } catch (err) {
      if (err instanceof NoSuchObjectError) throw new DirectoryError('config', 'LDAPBaseDN does not exist');
      if ((err as Error).name === 'SizeLimitExceededError') return undefined;
      throw err;
    }
  }

  /** The person of a found entry: attributes, groups, and whether it is disabled. */
  private async read(c: Client, entry: Entry, typed: string): Promise<DirectoryEntry> {
    const dn = entry.dn;
    const username = first(entry, this.s.usernameAttribute) || typed;
    const groupDns = [...all(entry, this.s.groupAttribute)];
    if (this.s.groupSearchBaseDn && this.s.groupSearchFilter) {
      const res = await c.search(this.s.groupSearchBaseDn, {
        scope: 'sub',
        filter: groupFilter(this.s.groupSearchFilter, dn, username),
        attributes: ['cn'],
        sizeLimit: GROUP_SEARCH_LIMIT,
      });
      for (const g of res.searchEntries) groupDns.push(g.dn);
    }
    const groups: string[] = [];
    const seen = new Set<string>();
    for (const g of groupDns) {
      for (const v of [g, firstRdnValue(g)]) {
        const key = v.toLowerCase();
        if (v && !seen.has(key)) {
          seen.add(key);
          groups.push(v);
        }
      }
    }
    let disabled = adAccountDisabled(first(entry, AD_ACCOUNT_CONTROL));
    if (!disabled && this.s.disabledFilter) {
      const res = await c.search(dn, { scope: 'base', filter: this.s.disabledFilter, attributes: ['1.1'] });
      disabled = res.searchEntries.length > 0;
    }
    return {
      dn,
      username,
      email: first(entry, this.s.emailAttribute),
      displayName: first(entry, this.s.displayNameAttribute),
      groups,
      disabled,
    };
  }

  /** The group and disabled-flag searches of read() for an entry that does not exist (their answers unused). */
  private async readNobody(c: Client, dn: string, typed: string): Promise<void> {
    const swallow = (err: unknown) => {
      if (!(err instanceof ResultCodeError)) throw err;
    };
    if (this.s.groupSearchBaseDn && this.s.groupSearchFilter)
      await c
        .search(this.s.groupSearchBaseDn, {
          scope: 'sub',
          filter: groupFilter(this.s.groupSearchFilter, dn, typed),
          attributes: ['cn'],
          sizeLimit: GROUP_SEARCH_LIMIT,
        })
        .catch(swallow);
    if (this.s.disabledFilter)
      await c.search(dn, { scope: 'base', filter: this.s.disabledFilter, attributes: ['1.1'] }).catch(swallow);
  }

  /** Binds as `dn` with `password`: true when the directory refuses it (wrong password or no such entry). */
  private async bindFails(c: Client, dn: string, password: string): Promise<boolean> {
    try {
      await c.bind(dn, password);
      return false;
    } catch (err) {
      if (
        err instanceof InvalidCredentialsError ||
        err instanceof NoSuchObjectError ||
        err instanceof InvalidDNSyntaxError
      )
        return true;
      throw err;
    }
  }
}
