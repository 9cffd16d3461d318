#ifndef SKYLIFT_CCRYPTO_CERTIFICATE_H
#define SKYLIFT_CCRYPTO_CERTIFICATE_H
#include <stdlib.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Copies a memory BIO's bytes into a malloc'ed NUL-terminated string (the caller frees it). */
static inline char *skylift_bio_string(BIO *bio) {
    char *data = NULL;
    long length = BIO_get_mem_data(bio, &data);
    if (length < 0 || data == NULL) return NULL;
    char *copy = malloc((size_t)length + 1);
    if (copy == NULL) return NULL;
    memcpy(copy, data, (size_t)length);
    copy[length] = 0;
    return copy;
}

static inline int skylift_cert_add_ext(X509 *cert, int nid, const char *value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL) return 0;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

/* A self-signed EC P-256 server certificate valid for `days` days from now, with `common_name` as subject
   and `alt_names` ("DNS:localhost,IP:127.0.0.1,...") as subjectAltName. On success returns 1 and sets
   *cert_pem and *key_pem (PKCS#8) to malloc'ed strings the caller frees; 0 on any failure. */
static inline int skylift_make_self_signed(const char *common_name, const char *alt_names, int days,
                                           char **cert_pem, char **key_pem) {
    *cert_pem = NULL; *key_pem = NULL;
    int ok = 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = X509_new();
    BIO *cert_bio = BIO_new(BIO_s_mem()), *key_bio = BIO_new(BIO_s_mem());
    unsigned char serial[16];
    BIGNUM *serial_bn = NULL;
    if (key == NULL || cert == NULL || cert_bio == NULL || key_bio == NULL) goto done;
    if (RAND_bytes(serial, sizeof serial) != 1) goto done;
    serial[0] &= 0x7f; /* positive */
    serial_bn = BN_bin2bn(serial, sizeof serial, NULL);
    if (serial_bn == NULL || BN_to_ASN1_INTEGER(serial_bn, X509_get_serialNumber(cert)) == NULL) goto done;
    if (X509_set_version(cert, 2) != 1) goto done;
    if (X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == NULL) goto done;
    if (X509_gmtime_adj(X509_getm_notAfter(cert), (long)days * 86400) == NULL) goto done;
    if (X509_set_pubkey(cert, key) != 1) goto done;
    X509_NAME *name = X509_get_subject_name(cert);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1) goto done;
    if (X509_set_issuer_name(cert, name) != 1) goto done;
    if (!skylift_cert_add_ext(cert, NID_basic_constraints, "critical,CA:FALSE")) goto done;
    if (!skylift_cert_add_ext(cert, NID_key_usage, "critical,digitalSignature")) goto done;
    if (!skylift_cert_add_ext(cert, NID_ext_key_usage, "serverAuth")) goto done;
    if (!skylift_cert_add_ext(cert, NID_subject_key_identifier, "hash")) goto done;
    if (!skylift_cert_add_ext(cert, NID_subject_alt_name, alt_names)) goto done;
    if (X509_sign(cert, key, EVP_sha256()) <= 0) goto done;
    if (PEM_write_bio_X509(cert_bio, cert) != 1) goto done;
    if (PEM_write_bio_PrivateKey(key_bio, key, NULL, NULL, 0, NULL, NULL) != 1) goto done;
    *cert_pem = skylift_bio_string(cert_bio);
    *key_pem = skylift_bio_string(key_bio);
    ok = *cert_pem != NULL && *key_pem != NULL;
done:
    if (!ok) {
        if (*key_pem != NULL) { OPENSSL_cleanse(*key_pem, strlen(*key_pem)); free(*key_pem); }
        free(*cert_pem);
        *cert_pem = NULL; *key_pem = NULL;
    }
    BN_free(serial_bn);
    BIO_free(cert_bio);
    if (key_bio != NULL) BIO_free(key_bio);
    X509_free(cert);
    EVP_PKEY_free(key);
    return ok;
}

/* Digests of the first certificate in a PEM text: SHA-256 of its DER (the fingerprint browsers and
   `openssl x509 -fingerprint -sha256` show) and of its SubjectPublicKeyInfo (what curl's pinned public key
   and Chromium's SPKI allowlist compare). Returns 1 on success, 0 when no certificate parses. */
static inline int skylift_cert_digests(const char *pem, size_t length, unsigned char cert_sha256[32],
                                       unsigned char spki_sha256[32]) {
    if (length > 1 << 20) return 0;
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) return 0;
    X509 *cert = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (cert == NULL) return 0;
    int ok = 0;
    unsigned char *der = NULL;
    int der_length = i2d_X509(cert, &der);
    if (der_length > 0) {
        SHA256(der, (size_t)der_length, cert_sha256);
        OPENSSL_free(der);
        der = NULL;
        der_length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(cert), &der);
        if (der_length > 0) {
            SHA256(der, (size_t)der_length, spki_sha256);
            OPENSSL_free(der);
            ok = 1;
        }
    }
    X509_free(cert);
    return ok;
}

/* 1 when the PEM private key parses and belongs to the PEM certificate; 0 otherwise. */
static inline int skylift_cert_key_matches(const char *cert_pem, size_t cert_length,
                                           const char *key_pem, size_t key_length) {
    if (cert_length > 1 << 20 || key_length > 1 << 20) return 0;
    BIO *cert_bio = BIO_new_mem_buf(cert_pem, (int)cert_length);
    BIO *key_bio = BIO_new_mem_buf(key_pem, (int)key_length);
    X509 *cert = cert_bio ? PEM_read_bio_X509(cert_bio, NULL, NULL, NULL) : NULL;
    /* No passphrase callback: an encrypted key fails here instead of prompting on the terminal. */
    EVP_PKEY *key = key_bio ? PEM_read_bio_PrivateKey(key_bio, NULL, NULL, (void *)"") : NULL;
    int ok = cert != NULL && key != NULL && X509_check_private_key(cert, key) == 1;
    EVP_PKEY_free(key);
    X509_free(cert);
    BIO_free(key_bio);
    BIO_free(cert_bio);
    return ok;
}
#endif
