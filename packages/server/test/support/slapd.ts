import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { freePort } from './process.js';
import { makeSelfSignedCert } from './self-signed-cert.js';

/** Debian's OpenLDAP server (package slapd). */
const SLAPD = '/usr/sbin/slapd';
const SCHEMA_DIR = '/etc/ldap/schema';
const MODULE_DIR = '/usr/lib/ldap';
const START_TIMEOUT_MS = 15_000;
const POLL_MS = 50;
const STOP_TIMEOUT_MS = 5_000;

export const LDAP_SUFFIX = 'dc=tollway,dc=test';
export const LDAP_ADMIN_DN = `cn=admin,${LDAP_SUFFIX}`;
export const LDAP_ADMIN_PASSWORD = 'admin-secret';
export const LDAP_PEOPLE = `ou=people,${LDAP_SUFFIX}`;
export const LDAP_GROUPS = `ou=groups,${LDAP_SUFFIX}`;
/** The read-only service account Tollway binds as to search (not the directory's administrator). */
export const LDAP_SERVICE_DN = `cn=tollway,${LDAP_SUFFIX}`;
export const LDAP_SERVICE_PASSWORD = 'service-secret';

export interface LdapPerson {
  uid: string;
  password: string;
  cn?: string;
  mail?: string;
  /** inetOrgPerson's employeeType: the tests' LDAPDisabledFilter marks 'disabled' people as disabled. */
  employeeType?: string;
}

export interface Slapd {
  /** ldap://127.0.0.1:<port> (plain, StartTLS offered). */
  url: string;
  /** ldaps://127.0.0.1:<port> with the self-signed certificate `caCert`. */
  ldapsUrl: string;
  /** The PEM certificate the server presents (self-signed: it is its own CA). */
  caCert: string;
  dnOf(uid: string): string;
  groupDn(cn: string): string;
  addPerson(p: LdapPerson): Promise<void>;
  removePerson(uid: string): Promise<void>;
  /** Sets a person's employeeType. */
  setEmployeeType(uid: string, value: string): Promise<void>;
  /** A groupOfNames `cn` with the given members (uids); the memberof overlay fills memberOf on them. */
  addGroup(cn: string, members: string[]): Promise<void>;
  setGroupMembers(cn: string, members: string[]): Promise<void>;
  stop(): Promise<void>;
}

function slapdConf(dir: string, certFile: string, keyFile: string): string {
  return [
    `include ${SCHEMA_DIR}/core.schema`,
    `include ${SCHEMA_DIR}/cosine.schema`,
    `include ${SCHEMA_DIR}/inetorgperson.schema`,
    `modulepath ${MODULE_DIR}`,
    'moduleload back_mdb',
    'moduleload memberof',
    `pidfile ${path.join(dir, 'slapd.pid')}`,
    `argsfile ${path.join(dir, 'slapd.args')}`,
    `TLSCertificateFile ${certFile}`,
    `TLSCertificateKeyFile ${keyFile}`,
    'database mdb',
    'maxsize 16777216',
    `suffix "${LDAP_SUFFIX}"`,
    `rootdn "${LDAP_ADMIN_DN}"`,
    `rootpw ${LDAP_ADMIN_PASSWORD}`,
    `directory ${path.join(dir, 'db')}`,
    'index objectClass eq',
    'index uid eq',
    'index member eq',
    'overlay memberof',
    'memberof-refint TRUE',
    'access to attrs=userPassword by anonymous auth by self read by * none',
    `access to * by dn.exact="${LDAP_SERVICE_DN}" read by users read by * none`,
    '',
  ].join('\n');
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function waitForPorts(child: ChildProcess, ports: number[], log: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`slapd exited (${child.exitCode ?? child.signalCode}) before listening:\n${log()}`);
    const open = await Promise.all(ports.map(portOpen));
    if (open.every(Boolean)) return;
    if (Date.now() > deadline) throw new Error(`slapd did not listen on ${ports.join(', ')} in time:\n${log()}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * Starts Debian's slapd from a temporary directory: slapd.conf with an mdb database under dc=tollway,dc=test,
 * the memberof overlay, plain LDAP (StartTLS offered) and ldaps on random free ports of 127.0.0.1 with a
 * self-signed certificate, the organisational units and a read-only service account. `stop()` ends it and
 * deletes the directory.
 */
export async function startSlapd(): Promise<Slapd> {
  if (!fs.existsSync(SLAPD)) throw new Error(`${SLAPD} is missing: apt-get install slapd ldap-utils`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-slapd-'));
  fs.mkdirSync(path.join(dir, 'db'));
  const cert = makeSelfSignedCert(dir);
  const conf = path.join(dir, 'slapd.conf');
  fs.writeFileSync(conf, slapdConf(dir, cert.certFile, cert.keyFile));
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  let output = '';
  // -d 0: stays in the foreground (ended with the suite) and logs nothing but startup errors.
  const child = spawn(SLAPD, ['-f', conf, '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    cleanup();
  };
  try {
    await waitForPorts(child, [port, tlsPort], () => output);
  } catch (err) {
    await stop();
    throw err;
  }

  const admin = async <T>(fn: (c: Client) => Promise<T>): Promise<T> => {
    const c = new Client({ url, timeout: 5000, connectTimeout: 5000 });
    try {
      await c.bind(LDAP_ADMIN_DN, LDAP_ADMIN_PASSWORD);
      return await fn(c);
    } finally {
      await c.unbind();
    }
  };
  const dnOf = (uid: string) => `uid=${uid},${LDAP_PEOPLE}`;
  const groupDn = (cn: string) => `cn=${cn},${LDAP_GROUPS}`;

  try {
    await admin(async (c) => {
      await c.add(LDAP_SUFFIX, { objectClass: ['dcObject', 'organization'], dc: 'tollway', o: 'Tollway tests' });
      await c.add(LDAP_PEOPLE, { objectClass: 'organizationalUnit', ou: 'people' });
      await c.add(LDAP_GROUPS, { objectClass: 'organizationalUnit', ou: 'groups' });
      await c.add(LDAP_SERVICE_DN, {
        objectClass: ['organizationalRole', 'simpleSecurityObject'],
        cn: 'tollway',
        userPassword: LDAP_SERVICE_PASSWORD,
      });
    });
  } catch (err) {
    await stop();
    throw new Error(`seeding slapd failed: ${(err as Error).message}\n${output}`, { cause: err });
  }

  return {
    url,
    ldapsUrl,
    caCert: cert.cert,
    dnOf,
    groupDn,
    addPerson: (p) =>
      admin(async (c) => {
        await c.add(dnOf(p.uid), {
          objectClass: 'inetOrgPerson',
          uid: p.uid,
          cn: p.cn ?? p.uid,
          sn: p.uid,
          userPassword: p.password,
          ...(p.mail ? { mail: p.mail } : {}),
          ...(p.employeeType ? { employeeType: p.employeeType } : {}),
        });
      }),
    removePerson: (uid) => admin((c) => c.del(dnOf(uid))),
    setEmployeeType: (uid, value) =>
      admin((c) =>
        c.modify(
          dnOf(uid),
          new Change({
            operation: 'replace',
            modification: new Attribute({ type: 'employeeType', values: [value] }),
          }),
        ),
      ),
    addGroup: (cn, members) =>
      admin((c) =>
        c.add(groupDn(cn), {
          objectClass: 'groupOfNames',
          cn,
          // groupOfNames needs one member at least: an empty group names the suffix.
          member: members.length ? members.map(dnOf) : [LDAP_SUFFIX],
        }),
      ),
    setGroupMembers: (cn, members) =>
      admin((c) =>
        c.modify(
          groupDn(cn),
          new Change({
            operation: 'replace',
            modification: new Attribute({
              type: 'member',
              values: members.length ? members.map(dnOf) : [LDAP_SUFFIX],
            }),
          }),
        ),
      ),
    stop,
  };
}
