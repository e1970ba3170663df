//! The authorisation request: its parameters, their checks, and the redirects that
//! carry its answer back to the client.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};
use url::Url;
use utoipa::ToSchema;
use worp_domain::access::Scopes;

use super::{ConsentView, OauthError, ScopeView, MAX_CLIENT_ID, MAX_REDIRECT_URI, MAX_STATE};

/// The parameters of an authorisation request, as the client sent them.
#[derive(Debug, Clone, Default, serde::Deserialize, ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuthorizeParams {
    /// `code`.
    pub response_type: Option<String>,
    /// Any name the front-end goes by (no registration); shown on the consent screen.
    pub client_id: Option<String>,
    /// Where the player's browser is sent back: `https`, or `http` on a loopback address.
    pub redirect_uri: Option<String>,
    /// Space-separated scopes.
    pub scope: Option<String>,
    /// Echoed back on the redirect.
    pub state: Option<String>,
    /// BASE64URL(SHA-256(code_verifier)).
    pub code_challenge: Option<String>,
    /// `S256`.
    pub code_challenge_method: Option<String>,
}

/// An authorisation request that passed every check: what the consent screen shows and
/// the player answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub client_id: String,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub scopes: Scopes,
    /// BASE64URL(SHA-256(code_verifier)).
    pub code_challenge: String,
}
/// The origin of a URL (`https://example.org:8443`).
pub(super) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Whether `uri` may be a redirect URI: absolute, no fragment, `https`, or `http` to a
/// loopback address (native apps, RFC 8252 §7.3).
fn checked_redirect(uri: &str) -> Result<Url, String> {
    if uri.len() > MAX_REDIRECT_URI {
        return Err(format!(
            "redirect_uri is longer than {MAX_REDIRECT_URI} bytes"
        ));
    }
    let url = Url::parse(uri).map_err(|e| format!("redirect_uri is not an absolute URL: {e}"))?;
    if url.fragment().is_some() {
        return Err("redirect_uri must not have a fragment".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("redirect_uri must not carry credentials".into());
    }
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        None => return Err("redirect_uri must name a host".into()),
    };
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        _ => Err("redirect_uri must be https, or http to a loopback address".into()),
    }
}

/// Whether `s` is made of RFC 7636's unreserved characters only, `min` to `max` of them.
pub(super) fn unreserved(s: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// BASE64URL(SHA-256(verifier)), as S256 computes it.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Checks an authorisation request. Every error is shown to the player and never
/// redirected. Clients do not register, so no redirect URI is ever validated for a
/// `client_id` (RFC 6749 §3.1.2.2, §4.1.2.1): whoever writes the link chooses both, and
/// sending a faulty request's error there at once, before any player has seen where it
/// goes, would make the server an open redirector (RFC 9700 §4.11.2). The client hears
/// an error (`access_denied`) only after the player, signed in, was shown its redirect's
/// origin and answered.
pub fn check_authorization(p: &AuthorizeParams) -> Result<Authorization, OauthError> {
    let client_id = p.client_id.as_deref().unwrap_or("").trim();
    if client_id.is_empty()
        || client_id.len() > MAX_CLIENT_ID
        || client_id.chars().any(char::is_control)
    {
        return Err(OauthError::new(
            "invalid_request",
            format!("client_id must be 1 to {MAX_CLIENT_ID} printable characters"),
        ));
    }
    let redirect_uri = p.redirect_uri.as_deref().unwrap_or("");
    checked_redirect(redirect_uri).map_err(|e| OauthError::new("invalid_request", e))?;
    if let Some(state) = &p.state {
        if state.len() > MAX_STATE {
            return Err(OauthError::new(
                "invalid_request",
                format!("state is longer than {MAX_STATE} bytes"),
            ));
        }
    }
    if p.response_type.as_deref() != Some("code") {
        return Err(OauthError::new(
            "unsupported_response_type",
            "response_type must be code",
        ));
    }
    if p.code_challenge_method.as_deref() != Some("S256") {
        return Err(OauthError::new(
            "invalid_request",
            "code_challenge_method must be S256 (PKCE is required; plain is not accepted)",
        ));
    }
    let challenge = p.code_challenge.as_deref().unwrap_or("");
    if challenge.len() != 43 || !unreserved(challenge, 43, 43) || challenge.contains(['.', '~']) {
        return Err(OauthError::new(
            "invalid_request",
            "code_challenge must be BASE64URL(SHA-256(code_verifier)): 43 characters",
        ));
    }
    let scopes = Scopes::from_spaced(p.scope.as_deref().unwrap_or(""))
        .map_err(|e| OauthError::new("invalid_scope", e.to_string()))?;
    if scopes.is_empty() {
        return Err(OauthError::new(
            "invalid_scope",
            format!("scope must name at least one of: {}", Scopes::ALL),
        ));
    }
    Ok(Authorization {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        state: p.state.clone(),
        scopes,
        code_challenge: challenge.to_owned(),
    })
}

/// `redirect_uri` with `pairs` added to its query (and `state`, when there is one).
pub(super) fn redirect_with(
    redirect_uri: &str,
    pairs: &[(&str, &str)],
    state: Option<&str>,
) -> String {
    match Url::parse(redirect_uri) {
        Ok(mut url) => {
            {
                let mut q = url.query_pairs_mut();
                for (k, v) in pairs {
                    q.append_pair(k, v);
                }
                if let Some(s) = state {
                    q.append_pair("state", s);
                }
            }
            url.into()
        }
        Err(_) => redirect_uri.to_owned(),
    }
}

impl Authorization {
    /// The consent screen's content.
    pub fn consent(&self) -> Result<ConsentView, OauthError> {
        let url = Url::parse(&self.redirect_uri)
            .map_err(|e| OauthError::new("invalid_request", e.to_string()))?;
        Ok(ConsentView {
            client_id: self.client_id.clone(),
            redirect_origin: origin(&url),
            redirect_uri: self.redirect_uri.clone(),
            scopes: self
                .scopes
                .iter()
                .map(|s| ScopeView {
                    scope: s.as_str(),
                    description: s.description(),
                })
                .collect(),
        })
    }

    /// Where to send the browser with `error`: only once the player has answered the
    /// consent screen, which showed where it goes (consent denied).
    pub(super) fn error_redirect(&self, error: &OauthError) -> String {
        redirect_with(
            &self.redirect_uri,
            &[
                ("error", error.error),
                ("error_description", &error.description),
            ],
            self.state.as_deref(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use worp_domain::access::Scope;

    fn params() -> AuthorizeParams {
        AuthorizeParams {
            response_type: Some("code".into()),
            client_id: Some("example.org front-end".into()),
            redirect_uri: Some("https://example.org/callback".into()),
            scope: Some("game:read game:play".into()),
            state: Some("xyz".into()),
            code_challenge: Some(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")),
            code_challenge_method: Some("S256".into()),
        }
    }

    #[test]
    fn rfc_7636_appendix_b_s256() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn a_good_request_passes_and_keeps_its_state() {
        let a = check_authorization(&params()).unwrap();
        let scopes = a.scopes;
        assert!(scopes.allows(Scope::GamePlay) && !scopes.allows(Scope::ChatWrite));
        assert_eq!(a.consent().unwrap().redirect_origin, "https://example.org");
        assert!(a
            .error_redirect(&OauthError::new("access_denied", "no"))
            .ends_with("&state=xyz"));
    }

    #[test]
    fn bad_redirects_are_never_followed() {
        for uri in [
            "",
            "/relative",
            "http://example.org/cb",
            "https://example.org/cb#frag",
            "https://user:pw@example.org/cb",
            "javascript:alert(1)",
        ] {
            let p = AuthorizeParams {
                redirect_uri: Some(uri.into()),
                ..params()
            };
            assert!(check_authorization(&p).is_err(), "{uri}");
        }
        for uri in [
            "http://127.0.0.1:8123/cb",
            "http://localhost/cb",
            "http://[::1]:9/cb",
        ] {
            let p = AuthorizeParams {
                redirect_uri: Some(uri.into()),
                ..params()
            };
            assert!(check_authorization(&p).is_ok(), "{uri}");
        }
    }

    #[test]
    fn plain_pkce_missing_pkce_and_unknown_scopes_are_refused_not_redirected() {
        let cases = [
            AuthorizeParams {
                code_challenge_method: Some("plain".into()),
                ..params()
            },
            AuthorizeParams {
                code_challenge_method: None,
                ..params()
            },
            AuthorizeParams {
                code_challenge: None,
                ..params()
            },
            AuthorizeParams {
                scope: Some("game:read admin".into()),
                ..params()
            },
            AuthorizeParams {
                scope: None,
                ..params()
            },
            AuthorizeParams {
                response_type: Some("token".into()),
                ..params()
            },
        ];
        for p in cases {
            assert!(check_authorization(&p).is_err(), "{p:?}");
        }
    }
}
