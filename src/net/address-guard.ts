// SSRF guard: feed URLs come from users, so the fetcher must not become a way to reach the
// server's own network (cloud metadata at 169.254.169.254, admin panels on 10.x, localhost).
//
// The check runs inside the socket's DNS `lookup` hook, so the address we check is exactly the
// address we connect to (no time-of-check/time-of-use gap with a second DNS answer), on every
// connection — hence on every redirect hop too. IP literals skip `lookup` in node:net, so
// `checkHostLiteral` covers them before the request is made.
//
// Classification uses ipaddr.js (already in the tree through Fastify's proxy-addr, well kept,
// knows the IANA special-purpose registries for both families and IPv4-mapped IPv6). node:net's
// BlockList would need us to maintain the range list by hand and does not unwrap mapped or
// NAT64 addresses. Policy is deny-by-default: only ranges ipaddr.js calls "unicast" pass, and
// every IPv6 form that embeds an IPv4 address is judged by that IPv4 address (embeddedIPv4).
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { NetError, formatDuration } from './errors.ts';

const ADVICE = '(set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow)';

/** Why an address must not be fetched ("loopback", "private", …), or null when it is public. */
export function refusalReason(address: string): string | null {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // ipaddr.parse reads every dotted-quad IPv6 form as IPv4-mapped: classify from the bytes instead.
  if (!ipaddr.isValid(text)) return 'unparsable';
  if (ipaddr.IPv4.isValid(text) && !text.includes(':')) {
    const range = ipaddr.IPv4.parse(text).range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ipaddr.IPv6.parse(text);
  const embedded = embeddedIPv4(v6.toByteArray());
  if (embedded === 'refuse') return 'NAT64 local-use (64:ff9b:1::/48)';
  if (embedded) {
    const inner = embedded.addresses.map(refusalReason).find((r) => r !== null);
    if (inner) return inner;
    return embedded.form === 'teredo' ? 'teredo' : null;
  }
  const range = v6.range();
  return range === 'unicast' ? null : range;
}

/**
 * The IPv4 address(es) an IPv6 address carries, so that e.g. [::127.0.0.1] (which URL parsing
 * turns into ::7f00:1) is judged as 127.0.0.1: IPv4-compatible ::/96 (deprecated, but still
 * routed by some stacks), IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16 and Teredo 2001::/32 (server, and client stored inverted).
 * NAT64 local-use 64:ff9b:1::/48 places the IPv4 address by a local prefix length: refused whole.
 */
function embeddedIPv4(b: number[]): { form: string; addresses: string[] } | 'refuse' | null {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const v4 = (i: number, invert = false) =>
    b
      .slice(i, i + 4)
      .map((x) => (invert ? x ^ 0xff : x))
      .join('.');
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return { form: 'mapped', addresses: [v4(12)] };
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12))
    return { form: 'translated', addresses: [v4(12)] };
  // :: and ::1 keep their own names (unspecified, loopback).
  if (zeros(0, 12) && !(zeros(12, 15) && b[15]! <= 1)) return { form: 'compatible', addresses: [v4(12)] };
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zeros(4, 12)) return { form: 'nat64', addresses: [v4(12)] };
    if (b[4] === 0 && b[5] === 1) return 'refuse';
  }
  if (b[0] === 0x20 && b[1] === 0x02) return { form: '6to4', addresses: [v4(2)] };
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0)
    return { form: 'teredo', addresses: [v4(4), v4(12, true)] };
  return null;
}

const READABLE: Record<string, string> = {
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (100.64/10)',
  uniqueLocal: 'unique-local (fc00::/7)',
  unparsable: 'unparsable',
};

function refusal(address: string, reason: string): NetError {
  return new NetError(
    'refused_address',
    `refusing to fetch ${READABLE[reason] ?? reason} address ${address} ${ADVICE}`,
  );
}

/** Throws when the URL's host is an IP literal that must not be fetched. Host names pass (checked at connect). */
export function checkHostLiteral(hostname: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) === 0) {
    if (host === 'localhost' || host.endsWith('.localhost')) throw refusal(host, 'loopback');
    return;
  }
  const reason = refusalReason(host);
  if (reason) throw refusal(ipaddr.process(host).toString(), reason);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** dns.lookup's shape, with every address (`all: true`): what guardedLookup resolves names with. */
export type LookupAll = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/**
 * `lookup` with a deadline, one lookup of a name out at a time: getaddrinfo cannot be cancelled
 * and holds one of libuv's four threads while it waits, so names that never answer (1,000 new
 * feeds whose article host is gone) must neither each start their own lookup nor wait without end.
 * A caller past its deadline gets a 'dns' NetError; the lookup still out serves later callers.
 */
export function lookupWithDeadline(lookup: LookupAll, timeoutMs: number): LookupAll {
  const out = new Map<string, ((err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void)[]>();
  return (hostname, options, callback) => {
    const key = `${hostname}\0${options.family ?? 0}\0${options.hints ?? 0}`;
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      const e = new NetError('dns', `DNS lookup of ${hostname} did not answer within ${formatDuration(timeoutMs)}`);
      callback(e as unknown as NodeJS.ErrnoException, []);
    }, timeoutMs);
    timer.unref();
    const answer = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      callback(err, addresses);
    };
    const waiting = out.get(key);
    if (waiting) {
      waiting.push(answer);
      return;
    }
    out.set(key, [answer]);
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      const all = out.get(key) ?? [];
      out.delete(key);
      for (const cb of all) cb(err, addresses);
    });
  };
}

/**
 * A `lookup` for net/tls.connect that resolves the name (within `timeoutMs`, with `lookup`:
 * dns.lookup unless a test gives its own) and keeps only addresses we may connect to.
 */
export function guardedLookup(allowPrivate: boolean, opts: { timeoutMs?: number; lookup?: LookupAll } = {}) {
  const resolve = lookupWithDeadline(opts.lookup ?? (dns.lookup as unknown as LookupAll), opts.timeoutMs ?? 5000);
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err instanceof NetError) {
        callback(err as unknown as NodeJS.ErrnoException, '');
        return;
      }
      if (err) {
        const msg =
          err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'ENODATA'
            ? `cannot resolve host name ${hostname} (check the URL)`
            : `DNS lookup of ${hostname} failed: ${err.message}`;
        callback(
          Object.assign(new NetError('dns', msg, { cause: err }), {
            code: err.code,
          }) as unknown as NodeJS.ErrnoException,
          '',
        );
        return;
      }
      let usable = addresses;
      if (!allowPrivate) {
        usable = addresses.filter((a) => refusalReason(a.address) === null);
        if (usable.length === 0) {
          const first = addresses[0]!;
          callback(
            refusal(
              `${first.address} (${hostname})`,
              refusalReason(first.address)!,
            ) as unknown as NodeJS.ErrnoException,
            '',
          );
          return;
        }
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
