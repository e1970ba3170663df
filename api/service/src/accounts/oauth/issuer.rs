//! The authorisation server's identity (RFC 8414 §2): its issuer is the server's public
//! URL as configured (`WORP_PUBLIC_URL`), and the endpoints its metadata names are on it.
//! Never taken from a request's `Host`, `X-Forwarded-Host` or `Forwarded` headers: any
//! client may send those, the issuer is a fixed identifier that clients compare, and a
//! cache in front of the server would hand a forged answer to everyone.

use url::Url;

/// The issuer: the public URL, without a trailing slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issuer(String);

impl Issuer {
    /// The issuer of the server at `public_url`: an absolute `http` or `https` URL with
    /// a host and no query, fragment or credentials.
    pub fn new(public_url: &str) -> Result<Issuer, String> {
        let url = Url::parse(public_url).map_err(|e| format!("{public_url:?}: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return Err(format!(
                "{public_url:?} is not an http or https URL with a host"
            ));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!(
                "{public_url:?}: the OAuth issuer has no query or fragment (RFC 8414 §2)"
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(format!("{public_url:?} must not carry credentials"));
        }
        let url: String = url.into();
        Ok(Issuer(url.trim_end_matches('/').to_owned()))
    }

    /// The issuer's URL.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The URL of `path` (which starts with `/`) on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issuer_is_the_public_url_without_its_trailing_slash() {
        for (public, issuer) in [
            ("http://localhost:8080", "http://localhost:8080"),
            ("https://worp.example.org/", "https://worp.example.org"),
            ("HTTPS://Worp.Example.org:443/", "https://worp.example.org"),
            ("https://example.org/worp/", "https://example.org/worp"),
        ] {
            let i = Issuer::new(public).unwrap();
            assert_eq!(i.as_str(), issuer);
            assert_eq!(i.url("/oauth/token"), format!("{issuer}/oauth/token"));
        }
    }

    #[test]
    fn a_url_that_cannot_be_an_issuer_is_refused() {
        for public in [
            "",
            "worp.example.org",
            "https://worp.example.org/?a=b",
            "https://worp.example.org/#top",
            "https://user:pw@worp.example.org",
            "ftp://worp.example.org",
            "mailto:noreply@worp.example.org",
        ] {
            assert!(Issuer::new(public).is_err(), "{public}");
        }
    }
}
