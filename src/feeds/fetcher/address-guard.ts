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
// NAT64 addresses. Policy is deny-by-default: only ranges ipaddr.js calls "unicast" pass.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { FeedError } from '../errors.ts';

const ADVICE = '(set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow)';

/** Why an address must not be fetched ("loopback", "private", …), or null when it is public. */
export function refusalReason(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try { ip = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')); } catch { return 'unparsable'; }
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return refusalReason(v6.toIPv4Address().toString());
    const range = v6.range();
    // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address: judge that one.
    if (range === 'rfc6052') return refusalReason(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
    if (range === '6to4') return refusalReason(ipaddr.fromByteArray(v6.toByteArray().slice(2, 6)).toString());
    return range === 'unicast' ? null : range;
  }
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

const READABLE: Record<string, string> = { linkLocal: 'link-local', carrierGradeNat: 'carrier-grade NAT (100.64/10)', uniqueLocal: 'unique-local (fc00::/7)', unparsable: 'unparsable' };

function refusal(address: string, reason: string): FeedError {
  return new FeedError('refused-address', `refusing to fetch ${READABLE[reason] ?? reason} address ${address} ${ADVICE}`);
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

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for net/tls.connect that resolves the name and keeps only addresses we may connect to. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        const msg = err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'ENODATA'
          ? `cannot resolve host name ${hostname} (check the URL)` : `DNS lookup of ${hostname} failed: ${err.message}`;
        callback(Object.assign(new FeedError('dns', msg, { cause: err }), { code: err.code }) as unknown as NodeJS.ErrnoException, '');
        return;
      }
      let usable = addresses;
      if (!allowPrivate) {
        usable = addresses.filter((a) => refusalReason(a.address) === null);
        if (usable.length === 0) {
          const first = addresses[0]!;
          callback(refusal(`${first.address} (${hostname})`, refusalReason(first.address)!) as unknown as NodeJS.ErrnoException, '');
          return;
        }
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
