//! HTTPS for the test world, because GitHub speaks nothing else: a CA made
//! at test time (the binary trusts it through `SSL_CERT_FILE`, exactly as a
//! self-hosted runner trusts a private CA), certificates for `127.0.0.1` and
//! `localhost`, and a TLS front on 127.0.0.1 that terminates TLS (offering
//! HTTP/2 and HTTP/1.1 by ALPN, as GitHub does) and forwards each connection
//! to a plain server beside it: wiremock, a raw fault server, or
//! `git http-backend`. The front stops when dropped.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use openssl::asn1::Asn1Time;
use openssl::bn::{BigNum, MsbOption};
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::ssl::{
    AlpnError, Ssl, SslAcceptor, SslAcceptorBuilder, SslMethod, SslVersion, select_next_proto,
};
use openssl::x509::extension::{
    BasicConstraints, ExtendedKeyUsage, KeyUsage, SubjectAlternativeName,
};
use openssl::x509::{X509, X509NameBuilder};
use tempfile::TempDir;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_openssl::SslStream;

/// A certificate authority made for this test process.
pub struct Ca {
    cert: X509,
    key: PKey<Private>,
    _dir: TempDir,
    /// Its certificate as PEM, for `SSL_CERT_FILE`.
    pub file: PathBuf,
}

fn ec_key() -> PKey<Private> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap()
}

fn serial() -> openssl::asn1::Asn1Integer {
    let mut n = BigNum::new().unwrap();
    n.rand(64, MsbOption::MAYBE_ZERO, false).unwrap();
    n.to_asn1_integer().unwrap()
}

fn name(common_name: &str) -> openssl::x509::X509Name {
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", common_name).unwrap();
    name.build()
}

impl Ca {
    pub fn new(common_name: &str) -> Ca {
        let key = ec_key();
        let mut cert = X509::builder().unwrap();
        cert.set_version(2).unwrap();
        cert.set_serial_number(&serial()).unwrap();
        cert.set_subject_name(&name(common_name)).unwrap();
        cert.set_issuer_name(&name(common_name)).unwrap();
        cert.set_pubkey(&key).unwrap();
        cert.set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        cert.set_not_after(&Asn1Time::days_from_now(2).unwrap())
            .unwrap();
        cert.append_extension(BasicConstraints::new().critical().ca().build().unwrap())
            .unwrap();
        cert.append_extension(
            KeyUsage::new()
                .critical()
                .key_cert_sign()
                .crl_sign()
                .build()
                .unwrap(),
        )
        .unwrap();
        cert.sign(&key, MessageDigest::sha256()).unwrap();
        let cert = cert.build();
        let dir = tempfile::Builder::new()
            .prefix("test-ca")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let file = dir.path().join("ca.pem");
        std::fs::write(&file, cert.to_pem().unwrap()).unwrap();
        Ca {
            cert,
            key,
            _dir: dir,
            file,
        }
    }

    /// A server certificate for `names` (IP addresses or DNS names).
    pub fn issue(&self, names: &[&str]) -> (X509, PKey<Private>) {
        let key = ec_key();
        let mut cert = X509::builder().unwrap();
        cert.set_version(2).unwrap();
        cert.set_serial_number(&serial()).unwrap();
        cert.set_subject_name(&name(names[0])).unwrap();
        cert.set_issuer_name(self.cert.subject_name()).unwrap();
        cert.set_pubkey(&key).unwrap();
        cert.set_not_before(&Asn1Time::days_from_now(0).unwrap())
            .unwrap();
        cert.set_not_after(&Asn1Time::days_from_now(1).unwrap())
            .unwrap();
        let mut san = SubjectAlternativeName::new();
        for n in names {
            if n.parse::<std::net::IpAddr>().is_ok() {
                san.ip(n);
            } else {
                san.dns(n);
            }
        }
        let context = cert.x509v3_context(Some(&self.cert), None);
        let san = san.build(&context).unwrap();
        cert.append_extension(san).unwrap();
        cert.append_extension(ExtendedKeyUsage::new().server_auth().build().unwrap())
            .unwrap();
        cert.sign(&self.key, MessageDigest::sha256()).unwrap();
        (cert.build(), key)
    }
}

/// The CA every test server's certificate comes from; the harness points
/// `SSL_CERT_FILE` at it.
pub fn ca() -> &'static Ca {
    static CA: LazyLock<Ca> = LazyLock::new(|| Ca::new("baseline-resolver test CA"));
    &CA
}

pub fn ca_file() -> &'static Path {
    &ca().file
}

impl Ca {
    /// A directory in OpenSSL's `SSL_CERT_DIR` layout (`HASH.0`) holding this CA.
    pub fn hashed_dir(&self) -> TempDir {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let hash = self.cert.subject_name_hash();
        std::fs::write(
            dir.path().join(format!("{hash:08x}.0")),
            self.cert.to_pem().unwrap(),
        )
        .unwrap();
        dir
    }
}

/// How a front speaks TLS.
pub struct Options<'a> {
    pub ca: &'a Ca,
    /// The names on the certificate.
    pub names: &'a [&'a str],
    /// Offer HTTP/2 by ALPN (the upstream must speak it too).
    pub h2: bool,
    /// Refuse anything newer: a server stuck on an old protocol.
    pub max_version: Option<SslVersion>,
}

impl Options<'_> {
    /// GitHub's shape: the test CA, `127.0.0.1` and `localhost`, HTTP/2.
    pub fn github() -> Options<'static> {
        Options {
            ca: ca(),
            names: &["127.0.0.1", "localhost"],
            h2: true,
            max_version: None,
        }
    }

    /// The same with HTTP/1.1 only, for upstreams that speak nothing else.
    pub fn http1() -> Options<'static> {
        Options {
            h2: false,
            ..Options::github()
        }
    }

    /// A certificate from `ca` for `names`.
    pub fn signed_by<'a>(ca: &'a Ca, names: &'a [&'a str]) -> Options<'a> {
        Options {
            ca,
            names,
            ..Options::github()
        }
    }

    fn acceptor(&self) -> SslAcceptor {
        let (cert, key) = self.ca.issue(self.names);
        let mut builder: SslAcceptorBuilder = match self.max_version {
            // Old protocols need OpenSSL's security level 0 to be offered at all.
            Some(max) => {
                let mut b = SslAcceptor::mozilla_intermediate(SslMethod::tls()).unwrap();
                b.set_cipher_list("DEFAULT:@SECLEVEL=0").unwrap();
                b.set_min_proto_version(Some(SslVersion::TLS1)).unwrap();
                b.set_max_proto_version(Some(max)).unwrap();
                b
            }
            None => SslAcceptor::mozilla_intermediate_v5(SslMethod::tls()).unwrap(),
        };
        builder.set_certificate(&cert).unwrap();
        builder.set_private_key(&key).unwrap();
        let protocols: &'static [u8] = if self.h2 {
            b"\x02h2\x08http/1.1"
        } else {
            b"\x08http/1.1"
        };
        builder.set_alpn_select_callback(move |_, client| {
            select_next_proto(protocols, client).ok_or(AlpnError::NOACK)
        });
        builder.build()
    }
}

/// TLS on 127.0.0.1 in front of a plain server.
pub struct Front {
    pub port: u16,
    /// TCP connections accepted so far, handshakes that failed included.
    pub connections: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl Front {
    pub async fn start(upstream: SocketAddr, options: Options<'_>) -> Front {
        let acceptor = options.acceptor();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let count = connections.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let ssl = Ssl::new(acceptor.context()).unwrap();
                tokio::spawn(forward(ssl, client, upstream));
            }
        });
        Front {
            port,
            connections,
            task,
        }
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One connection: the handshake, then bytes both ways until either side
/// ends. A reset from upstream is passed on as a reset.
async fn forward(ssl: Ssl, client: TcpStream, upstream: SocketAddr) {
    // Small writes go out at once, as a server's would: Nagle's algorithm
    // would hold them for the peer's delayed ACK.
    let _ = client.set_nodelay(true);
    let mut tls = SslStream::new(ssl, client).unwrap();
    if Pin::new(&mut tls).accept().await.is_err() {
        return;
    }
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    let _ = server.set_nodelay(true);
    if let Err(e) = tokio::io::copy_bidirectional(&mut tls, &mut server).await
        && e.kind() == std::io::ErrorKind::ConnectionReset
    {
        let _ = tls.get_ref().set_zero_linger();
    }
}
