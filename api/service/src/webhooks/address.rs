//! Where webhooks may be sent: public addresses only, unless the operator allows a range
//! (`WORP_WEBHOOK_ALLOW`). A player's URL is checked when it is registered and again when
//! a delivery connects, after its name is resolved here ([`Screening`]), so a name that
//! resolves to a private address later (DNS rebinding) is refused all the same.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;

/// A host or address that is not public and not allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a public address")]
pub struct Refused(pub String);

/// Reads `WORP_WEBHOOK_ALLOW`: comma-separated CIDR ranges (`127.0.0.0/8,::1/128`); a
/// bare address is its own range.
pub fn parse_allow(text: &str) -> Result<Vec<IpNet>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<IpNet>()
                .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("{s:?} is not a CIDR range such as 10.0.0.0/8 or ::1/128"))
        })
        .collect()
}

/// Whether `ip` may be sent to: a public address, or one in an allowed range.
pub fn check(ip: IpAddr, allow: &[IpNet]) -> Result<(), Refused> {
    let canonical = ip.to_canonical();
    if is_public(ip)
        || allow
            .iter()
            .any(|n| n.contains(&ip) || n.contains(&canonical))
    {
        Ok(())
    } else {
        Err(Refused(canonical.to_string()))
    }
}

/// Checks a URL's host as written: addresses (every spelling the URL parser reads,
/// `2130706433` and `0x7f000001` included, are addresses by then) and the names that
/// mean this machine (`localhost`, `*.localhost`). Other names are checked when a
/// delivery resolves them.
pub fn check_url(url: &Url, allow: &[IpNet]) -> Result<(), Refused> {
    if let Some(ip) = literal(url) {
        return check(ip, allow);
    }
    let host = url.host_str().unwrap_or_default();
    if !is_localhost(host) {
        return Ok(());
    }
    let loopback = [Ipv4Addr::LOCALHOST.into(), Ipv6Addr::LOCALHOST.into()];
    if loopback.into_iter().any(|ip| check(ip, allow).is_ok()) {
        Ok(())
    } else {
        Err(Refused(host.to_owned()))
    }
}

/// The address a URL's host is written as, if it is one (such hosts are never resolved).
pub fn literal(url: &Url) -> Option<IpAddr> {
    // The parser writes addresses in their one canonical form, IPv6 in brackets.
    let host = url.host_str()?;
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

fn is_localhost(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// Whether `ip` is globally routable: not loopback, private, link-local, shared (CGNAT),
/// unique-local, unspecified, multicast, broadcast, reserved, documentation or
/// benchmarking, and no IPv6 address that embeds such an IPv4 address (mapped,
/// compatible, NAT64, 6to4).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => public_v4(ip),
        IpAddr::V6(ip) => public_v6(ip),
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = a == 0 // "this network", 0.0.0.0
        || a == 10
        || a == 127
        || a >= 224 // multicast, reserved, broadcast
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254) // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && (c == 0 || c == 2)) // IETF protocol assignments, TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113); // TEST-NET-3
    !refused
}

fn public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return public_v4(v4);
    }
    let s = ip.segments();
    // Only global unicast (2000::/3) is routable; loopback, unspecified, unique-local,
    // link-local, site-local, multicast, discard and local NAT64 all lie outside it.
    let global_unicast = s[0] & 0xe000 == 0x2000;
    let refused = match s[0] {
        // IETF protocol assignments (Teredo, benchmarking, ORCHID); documentation.
        0x2001 => s[1] < 0x0200 || s[1] == 0x0db8,
        // Documentation (3fff::/20).
        0x3fff => s[1] < 0x1000,
        _ => false,
    };
    global_unicast && !refused
}

/// The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, also `::` and
/// `::1`), NAT64 (`64:ff9b::a.b.c.d`) and 6to4 (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let v4 = |hi: u16, lo: u16| Some(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo]
        | [0, 0, 0, 0, 0xffff, 0, hi, lo]
        | [0, 0, 0, 0, 0, 0, hi, lo]
        | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => v4(hi, lo),
        [0x2002, hi, lo, ..] => v4(hi, lo),
        _ => None,
    }
}

/// Keeps the resolved addresses that may be sent to; refuses the name if none is left.
pub fn screen(
    name: &str,
    addrs: impl IntoIterator<Item = SocketAddr>,
    allow: &[IpNet],
) -> Result<Vec<SocketAddr>, Refused> {
    let mut refused = false;
    let mut kept = Vec::new();
    for addr in addrs {
        match check(addr.ip(), allow) {
            Ok(()) => kept.push(addr),
            Err(_) => refused = true,
        }
    }
    // The name only: what it resolves to inside the server's network is not the
    // player's to learn (the delivery log is theirs to read).
    if kept.is_empty() && refused {
        Err(Refused(name.to_owned()))
    } else {
        Ok(kept)
    }
}

/// The delivery client's resolver: resolves names itself and hands the connector only
/// the addresses [`screen`] keeps, so what is checked is what is connected to.
#[derive(Debug, Clone)]
pub struct Screening {
    pub allow: Arc<[IpNet]>,
}

impl Resolve for Screening {
    fn resolve(&self, name: Name) -> Resolving {
        let allow = self.allow.clone();
        let name = name.as_str().to_owned();
        Box::pin(async move {
            let found = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let kept = screen(&name, found, &allow)?;
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("address")
    }

    #[test]
    fn only_globally_routable_addresses_are_public() {
        for s in [
            "0.0.0.0",
            "0.1.2.3",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "127.255.0.9",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.0.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.1",
            "203.0.113.1",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::127.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:0:169.254.169.254",
            "64:ff9b::127.0.0.1",
            "64:ff9b:1::1",
            "100::1",
            "2001::1",
            "2001:2::1",
            "2001:db8::1",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "3fff::1",
            "fc00::1",
            "fd00::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
        ] {
            assert!(!is_public(ip(s)), "{s} counted as public");
        }
        for s in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.215.14",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.254",
            "2606:4700::6810:84e5",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::8.8.8.8",
            "2002:808:808::1",
        ] {
            assert!(is_public(ip(s)), "{s} refused");
        }
    }

    #[test]
    fn allowed_ranges_admit_addresses_and_their_mapped_forms() {
        let allow = parse_allow(" 127.0.0.0/8 , ::1/128,10.9.8.7").expect("ranges");
        assert!(check(ip("127.0.0.1"), &allow).is_ok());
        assert!(check(ip("::ffff:127.0.0.1"), &allow).is_ok());
        assert!(check(ip("::1"), &allow).is_ok());
        assert!(check(ip("10.9.8.7"), &allow).is_ok());
        assert_eq!(
            check(ip("10.9.8.6"), &allow),
            Err(Refused("10.9.8.6".into()))
        );
        assert_eq!(
            check(ip("::ffff:169.254.169.254"), &[]),
            Err(Refused("169.254.169.254".into()))
        );
        assert!(parse_allow("").expect("empty").is_empty());
        assert!(parse_allow("127.0.0.0/33").is_err());
        assert!(parse_allow("localhost").is_err());
    }

    #[test]
    fn a_resolved_name_keeps_only_the_addresses_it_may_reach() {
        let addrs = |list: &[&str]| -> Vec<SocketAddr> {
            list.iter().map(|s| SocketAddr::new(ip(s), 0)).collect()
        };
        // Rebinding to loopback or metadata: refused, naming the name only (never
        // what it resolved to inside the server's network).
        assert_eq!(
            screen("evil.example", addrs(&["127.0.0.1", "::1"]), &[]),
            Err(Refused("evil.example".into()))
        );
        assert_eq!(
            screen("evil.example", addrs(&["169.254.169.254"]), &[]).map_err(|e| e.to_string()),
            Err("evil.example is not a public address".into())
        );
        // A mix: only the public address is connected to.
        assert_eq!(
            screen("mixed.example", addrs(&["10.0.0.1", "8.8.8.8"]), &[]),
            Ok(addrs(&["8.8.8.8"]))
        );
        let allow = parse_allow("127.0.0.0/8").expect("ranges");
        assert_eq!(
            screen("localhost", addrs(&["::1", "127.0.0.1"]), &allow),
            Ok(addrs(&["127.0.0.1"]))
        );
    }

    #[test]
    fn registration_reads_hosts_as_the_url_parser_does() {
        for url in [
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://localhost./",
            "http://a.b.LOCALHOST/",
            "http://[::ffff:7f00:1]/",
        ] {
            let parsed = Url::parse(url).expect("url");
            assert!(check_url(&parsed, &[]).is_err(), "{url}");
        }
        let parsed = Url::parse("https://hooks.example.com/x").expect("url");
        assert!(check_url(&parsed, &[]).is_ok());
        let allow = parse_allow("127.0.0.0/8").expect("ranges");
        let parsed = Url::parse("http://localhost:9000/x").expect("url");
        assert!(check_url(&parsed, &allow).is_ok());
    }
}
