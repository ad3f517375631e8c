//! Why a request got no answer, said once and in a few words: the root
//! cause of a chain of wrapped errors (reqwest, hyper, native-tls each repeat
//! the URL), and whether it was the server's certificate or the TLS
//! handshake (both final: retrying cannot help, and nothing is ever
//! retried without TLS).

/// The errors an error wraps, outermost first.
pub(super) fn chain<'a>(
    err: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(err), |e| e.source())
}

/// Why the server's certificate was refused, when that is what failed:
/// OpenSSL's verify result (`unable to get local issuer certificate`,
/// `hostname mismatch`, `certificate has expired`).
pub(super) fn certificate_problem(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    chain(err).find_map(|e| {
        let text = e.to_string();
        if !text.contains("certificate verify failed") {
            return None;
        }
        // native-tls appends the verify result in parentheses.
        let reason = text
            .rsplit_once(" (")
            .and_then(|(_, r)| r.strip_suffix(')'))
            .unwrap_or("certificate verify failed");
        Some(reason.to_owned())
    })
}

/// OpenSSL's reason when the TLS handshake failed for something other than
/// the certificate: `error:0A000102:SSL routines:FUNCTION:REASON:FILE:LINE:`.
pub(super) fn tls_problem(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    chain(err).find_map(|e| {
        let text = e.to_string();
        let at = text.find("SSL routines:")?;
        let routines = text.get(at..)?;
        Some(routines.split(':').nth(2).unwrap_or("failed").to_owned())
    })
}

/// The root cause of a failed request in a few words, once: the wrappers
/// around it (reqwest, hyper) each repeat the URL and add nothing.
pub(super) fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    for e in chain(err) {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            let phrase = match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused",
                std::io::ErrorKind::ConnectionReset => "connection reset",
                std::io::ErrorKind::ConnectionAborted => "connection aborted",
                std::io::ErrorKind::TimedOut => "connection timed out",
                std::io::ErrorKind::UnexpectedEof => "connection closed early",
                _ => continue,
            };
            return phrase.to_owned();
        }
    }
    let deepest = chain(err)
        .last()
        .map(ToString::to_string)
        .unwrap_or_default();
    let one_line = deepest.replace(['\r', '\n'], " ");
    crate::runner::shown(one_line.trim())
}
