//! Which hosts and addresses a server-side fetch of a user-supplied link
//! may reach (docs/outbound.md "What is refused"). Every address is
//! classified by [`refused_class`]; the allow-list of the settings lets
//! chosen hosts and networks through.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

/// Refused IPv4 ranges and why (IANA special-purpose registry, RFC 6890).
/// The first match names the class.
const REFUSED_V4: &[(&str, &str)] = &[
    ("0.0.0.0/8", "unspecified"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "private (shared CGNAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (cloud metadata)"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "reserved (IETF protocol assignments)"),
    ("192.0.2.0/24", "documentation"),
    ("192.88.99.0/24", "reserved (6to4 relay)"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "reserved (benchmarking)"),
    ("198.51.100.0/24", "documentation"),
    ("203.0.113.0/24", "documentation"),
    ("224.0.0.0/4", "multicast"),
    ("255.255.255.255/32", "broadcast"),
    ("240.0.0.0/4", "reserved"),
];

/// Refused IPv6 ranges and why. Forms that embed an IPv4 address
/// (IPv4-mapped, NAT64, 6to4) are judged by that address instead, in
/// [`refused_class`].
const REFUSED_V6: &[(&str, &str)] = &[
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "reserved (IPv4-compatible)"),
    ("64:ff9b:1::/48", "private (local NAT64)"),
    ("100::/64", "reserved (discard)"),
    ("2001::/32", "reserved (Teredo)"),
    ("2001:db8::/32", "documentation"),
    ("fc00::/7", "private (unique local)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "private (site-local)"),
    ("ff00::/8", "multicast"),
];

/// Host names refused before any lookup: local names and the cloud
/// metadata services' names.
const REFUSED_NAMES: &[&str] = &[
    "localhost",
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.internal",
    "metadata.tencentyun.com",
];

fn parsed(table: &'static [(&'static str, &'static str)]) -> impl Iterator<Item = (IpNet, &'static str)> {
    table.iter().map(|(net, class)| (net.parse().expect("the tables hold valid CIDRs"), *class))
}

/// The class an address is refused as (`loopback`, `private`,
/// `link-local (cloud metadata)`, …), or `None` for a public unicast
/// address.
pub fn refused_class(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => parsed(REFUSED_V4).find(|(net, _)| net.contains(&IpAddr::V4(v4))).map(|(_, c)| c),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return refused_class(IpAddr::V4(v4));
            }
            parsed(REFUSED_V6).find(|(net, _)| net.contains(&IpAddr::V6(v6))).map(|(_, c)| c)
        }
    }
}

/// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), NAT64
/// (`64:ff9b::a.b.c.d`) or 6to4 (`2002:AABB:CCDD::`) address.
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let from = |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(from(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return Some(from(s[1], s[2]));
    }
    None
}

/// Whether `host` (lower case, no trailing dot) is refused by name.
fn refused_name(host: &str) -> bool {
    REFUSED_NAMES.contains(&host) || host.ends_with(".localhost")
}

/// Why a host or address may not be reached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{host} is refused: {reason}")]
pub struct Refusal {
    /// The host name or address refused.
    pub host: String,
    /// Which rule refused it (docs/outbound.md "What is refused").
    pub reason: String,
}

/// The rules of one deployment: the refused classes, minus the
/// allow-list, plus the port rule.
#[derive(Debug, Clone, Default)]
pub struct AddressPolicy {
    networks: Vec<IpNet>,
    hosts: Vec<String>,
    domains: Vec<String>,
    ports: Vec<u16>,
}

impl AddressPolicy {
    /// The policy of an `allow` list and the allowed `ports` (those of
    /// `[outbound]`: [`AddressPolicy::from_settings`]).
    ///
    /// # Errors
    /// An allow entry that is neither an address, a CIDR, a host name nor
    /// `*.domain`.
    pub fn from_lists(allow: &[String], ports: &[u16]) -> anyhow::Result<AddressPolicy> {
        let mut policy = AddressPolicy { ports: ports.to_vec(), ..AddressPolicy::default() };
        for entry in allow {
            let entry = entry.trim().to_ascii_lowercase();
            if let Ok(net) = entry.parse::<IpNet>() {
                policy.networks.push(net);
            } else if let Ok(ip) = entry.parse::<IpAddr>() {
                policy.networks.push(IpNet::from(ip));
            } else if let Some(domain) = entry.strip_prefix("*.").filter(|d| is_host_name(d)) {
                policy.domains.push(domain.to_owned());
            } else if is_host_name(&entry) {
                policy.hosts.push(entry);
            } else {
                anyhow::bail!(
                    "MEDIAOPS_OUTBOUND__ALLOW: {entry:?} is not an IP address, a CIDR, a host name or *.domain"
                );
            }
        }
        Ok(policy)
    }

    /// Whether the host name `host` is on the allow-list (then every
    /// address it resolves to is allowed too).
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = normalize(host);
        self.hosts.contains(&host)
            || self.domains.iter().any(|d| host.strip_suffix(d.as_str()).is_some_and(|p| p.ends_with('.')))
    }

    fn address_allowed(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.networks.iter().any(|net| net.contains(&ip))
    }

    /// Checks a host name before any lookup: local and metadata names are
    /// refused unless allow-listed.
    pub fn check_name(&self, host: &str) -> Result<(), Refusal> {
        let host = normalize(host);
        if refused_name(&host) && !self.host_allowed(&host) {
            return Err(Refusal { host, reason: "a local or cloud-metadata host name".into() });
        }
        Ok(())
    }

    /// Checks one address `host` resolved to (or `host` itself when it is
    /// an address literal).
    pub fn check_address(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        if self.host_allowed(host) || self.address_allowed(ip) {
            return Ok(());
        }
        match refused_class(ip) {
            Some(class) => Err(Refusal { host: normalize(host), reason: format!("{ip} is a {class} address") }),
            None => Ok(()),
        }
    }

    /// Checks the port of a link to `host` (resolved to `ips`): one of
    /// `ports` (any when empty), or any port of an allow-listed host or
    /// address.
    pub fn check_port(&self, host: &str, ips: &[IpAddr], port: u16) -> Result<(), Refusal> {
        if self.ports.is_empty()
            || self.ports.contains(&port)
            || self.host_allowed(host)
            || (!ips.is_empty() && ips.iter().all(|ip| self.address_allowed(*ip)))
        {
            return Ok(());
        }
        Err(Refusal { host: normalize(host), reason: format!("port {port} is not one of {:?}", self.ports) })
    }
}

/// Lower case, without a trailing dot or IPv6 brackets.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.').to_ascii_lowercase()
}

fn is_host_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|label| {
            !label.is_empty() && label.len() <= 63 && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbound::settings::OutboundSettings;

    fn class(ip: &str) -> Option<&'static str> {
        refused_class(ip.parse().unwrap())
    }

    #[test]
    fn every_refused_class_is_recognized_and_public_addresses_pass() {
        let refused = [
            ("127.0.0.1", "loopback"),
            ("127.255.0.9", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("100.64.0.1", "private (shared CGNAT)"),
            ("169.254.169.254", "link-local (cloud metadata)"),
            ("224.0.0.1", "multicast"),
            ("239.255.255.250", "multicast"),
            ("0.0.0.0", "unspecified"),
            ("255.255.255.255", "broadcast"),
            ("192.0.2.10", "documentation"),
            ("198.51.100.1", "documentation"),
            ("203.0.113.5", "documentation"),
            ("198.18.0.1", "reserved (benchmarking)"),
            ("240.0.0.1", "reserved"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fc00::1", "private (unique local)"),
            ("fd00:ec2::254", "private (unique local)"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("2001:db8::1", "documentation"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "link-local (cloud metadata)"),
            ("::ffff:10.0.0.1", "private"),
            ("64:ff9b::a9fe:a9fe", "link-local (cloud metadata)"),
            ("2002:c0a8:0101::1", "private"),
            ("::7f00:1", "reserved (IPv4-compatible)"),
        ];
        for (ip, expected) in refused {
            assert_eq!(class(ip), Some(expected), "{ip}");
        }
        for ip in ["8.8.8.8", "1.1.1.1", "101.6.6.6", "172.32.0.1", "100.128.0.1", "2400:3200::1", "::ffff:8.8.8.8"] {
            assert_eq!(class(ip), None, "{ip} is public");
        }
    }

    #[test]
    fn names_ports_and_the_allow_list() {
        let strict = AddressPolicy::from_settings(&OutboundSettings::default()).unwrap();
        for name in ["localhost", "LOCALHOST.", "api.localhost", "metadata.google.internal", "metadata"] {
            assert!(strict.check_name(name).is_err(), "{name}");
        }
        assert!(strict.check_name("www.douyin.com").is_ok());
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        let public: IpAddr = "8.8.8.8".parse().unwrap();
        assert!(strict.check_address("x.test", loopback).is_err());
        assert!(strict.check_address("x.test", public).is_ok());
        assert!(strict.check_port("x.test", &[public], 443).is_ok());
        assert!(strict.check_port("x.test", &[public], 6379).is_err());

        let settings = OutboundSettings {
            allow: vec!["127.0.0.1/32".into(), "fake.test".into(), "*.corp".into()],
            ..OutboundSettings::default()
        };
        let open = AddressPolicy::from_settings(&settings).unwrap();
        assert!(open.check_address("anything", loopback).is_ok());
        assert!(open.check_address("anything", "::ffff:127.0.0.1".parse().unwrap()).is_ok());
        assert!(open.check_address("anything", "127.0.0.2".parse().unwrap()).is_err());
        assert!(open.check_address("fake.test", "10.0.0.1".parse().unwrap()).is_ok());
        assert!(open.check_address("img.corp", "10.0.0.1".parse().unwrap()).is_ok());
        assert!(open.check_address("corp", "10.0.0.1".parse().unwrap()).is_err());
        assert!(open.check_port("anything", &[loopback], 38123).is_ok());
        assert!(open.check_port("other", &[public], 38123).is_err());

        let bad = OutboundSettings { allow: vec!["not a host!".into()], ..OutboundSettings::default() };
        assert!(AddressPolicy::from_settings(&bad).unwrap_err().to_string().contains("not a host!"));
    }
}
