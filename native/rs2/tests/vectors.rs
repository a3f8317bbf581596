//! Every vector in shared/vectors/walrus-rs2 (blob ids, root hashes, slivers, sliver hashes,
//! metadata, RS code vectors, DataTooLarge cases).

mod common;

use common::*;
use serde_json::Value;
use tusk_rs2::{blob_id, blob_id_to_base64url, encode, rs_encode, EncodeError, EncodedBlob};

#[test]
fn splitmix64_matches_readme() {
    assert_eq!(hex(&splitmix64(0, 12)), "afcd1d7b39a820e2f465b9a1");
}

#[test]
fn rs_code_vectors() {
    let file = load("rs_vectors.json");
    let vectors = file["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), 20);
    for v in vectors {
        let (k, r) = (u(&v["original_count"]) as usize, u(&v["recovery_count"]) as usize);
        let original = unhex(v["original_hex"].as_str().unwrap());
        assert_eq!(original.len(), k * u(&v["shard_bytes"]) as usize);
        let recovery = rs_encode(&original, k, r);
        assert_eq!(hex(&recovery), v["recovery_hex"].as_str().unwrap(), "{} {}", v["from"], v["what"]);
    }
}

fn refs(x: &[Vec<u8>]) -> Vec<&[u8]> {
    x.iter().map(|b| b.as_slice()).collect()
}

fn check_digests(v: &Value, enc: &EncodedBlob) {
    let n = enc.params.n_shards;
    let d = &v["digests"];
    let id = &v["id"];
    let primary: Vec<&[u8]> = (0..n).map(|p| enc.sliver_pair(p).0).collect();
    let secondary: Vec<&[u8]> = (0..n).map(|p| enc.sliver_pair(p).1).collect();
    assert_eq!(sha256_hex(&primary), d["primary_data_sha256"].as_str().unwrap(), "{id} primary data");
    assert_eq!(sha256_hex(&secondary), d["secondary_data_sha256"].as_str().unwrap(), "{id} secondary data");
    let pbcs: Vec<Vec<u8>> = (0..n).map(|p| enc.primary_sliver_bcs(p)).collect();
    let sbcs: Vec<Vec<u8>> = (0..n).map(|p| enc.secondary_sliver_bcs(n - 1 - p)).collect();
    assert_eq!(sha256_hex(&refs(&pbcs)), d["primary_bcs_sha256"].as_str().unwrap(), "{id} primary bcs");
    assert_eq!(sha256_hex(&refs(&sbcs)), d["secondary_bcs_sha256"].as_str().unwrap(), "{id} secondary bcs");
    let hashes: Vec<&[u8]> = enc.metadata.pair_hashes.iter().flat_map(|h| [&h.primary[..], &h.secondary[..]]).collect();
    assert_eq!(sha256_hex(&hashes), d["sliver_hashes_sha256"].as_str().unwrap(), "{id} sliver hashes");
    assert_eq!(sha256_hex(&[&enc.metadata.to_bcs()]), d["metadata_bcs_sha256"].as_str().unwrap(), "{id} metadata bcs");
    assert_eq!(
        tusk_rs2::metadata_bcs_len(enc.params.n_shards),
        enc.metadata.to_bcs().len(),
        "{id} metadata bcs length"
    );
}

fn check_blob_vector(v: &Value) {
    let id = v["id"].as_str().unwrap();
    let n = u(&v["n_shards"]) as u16;
    let data = input_of(v);
    assert_eq!(sha256_hex(&[&data]), v["data_sha256"].as_str().unwrap(), "{id} input");
    if v["ok"] == Value::Bool(false) {
        assert_eq!(v["error"], "DataTooLarge");
        let max = u(&v["derived"]["max_blob_size"]);
        let want = EncodeError::DataTooLarge { length: data.len() as u64, max };
        assert_eq!(blob_id(&data, n).unwrap_err(), want, "{id}");
        assert_eq!(encode(&data, n).err().unwrap(), want, "{id}");
        return;
    }
    let enc = encode(&data, n).unwrap();
    let info = enc.blob_id_info();
    assert_eq!(hex(&info.blob_id), v["blob_id_hex"].as_str().unwrap(), "{id} blob id");
    assert_eq!(blob_id_to_base64url(&info.blob_id), v["blob_id"].as_str().unwrap(), "{id} base64");
    assert_eq!(hex(&info.root_hash), v["root_hash_hex"].as_str().unwrap(), "{id} root");
    assert_eq!(info.unencoded_length, u(&v["unencoded_length"]));
    let derived = &v["derived"];
    assert_eq!(info.symbol_size as u64, u(&derived["symbol_size"]), "{id} symbol size");
    assert_eq!(info.encoded_length, u(&derived["encoded_length"]), "{id} encoded length");
    assert_eq!(enc.params.primary_sliver_len() as u64, u(&derived["primary_sliver_bytes"]));
    assert_eq!(enc.params.secondary_sliver_len() as u64, u(&derived["secondary_sliver_bytes"]));
    assert_eq!(enc.params.metadata_length(), u(&derived["metadata_length"]));
    assert_eq!(tusk_rs2::max_blob_size(n).unwrap(), u(&derived["max_blob_size"]));
    // The id-only path (no slivers kept) agrees with the full encoding.
    assert_eq!(blob_id(&data, n).unwrap(), info, "{id} blob_id()");
    if v["digests"].is_object() {
        check_digests(v, &enc);
    }
}

#[test]
fn literal_blob_ids() {
    let file = load("blob_ids.json");
    for v in file["literal_vectors"].as_array().unwrap() {
        check_blob_vector(v);
    }
}

fn blob_vectors_for(n: u64) {
    let file = load("blob_ids.json");
    let vs: Vec<&Value> = file["vectors"].as_array().unwrap().iter().filter(|v| u(&v["n_shards"]) == n).collect();
    assert!(!vs.is_empty());
    for v in vs {
        check_blob_vector(v);
    }
}

#[test]
fn blob_ids_n4() {
    blob_vectors_for(4);
}

#[test]
fn blob_ids_n7() {
    blob_vectors_for(7);
}

#[test]
fn blob_ids_n10() {
    blob_vectors_for(10);
}

#[test]
fn blob_ids_n100() {
    blob_vectors_for(100);
}

#[test]
fn blob_ids_n1000() {
    blob_vectors_for(1000);
}

fn sliver_file(name: &str) {
    let file = load(name);
    for v in file["vectors"].as_array().unwrap() {
        let id = v["id"].as_str().unwrap();
        let n = u(&v["n_shards"]) as usize;
        let data = input_of(v);
        let enc = encode(&data, n as u16).unwrap();
        assert_eq!(hex(&enc.metadata.blob_id), v["blob_id_hex"].as_str().unwrap(), "{id}");
        assert_eq!(hex(&enc.metadata.to_bcs()), v["metadata_bcs_hex"].as_str().unwrap(), "{id} metadata");
        let pairs = v["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), n);
        for (p, pair) in pairs.iter().enumerate() {
            assert_eq!(u(&pair["pair_index"]) as usize, p);
            let (prim, sec) = enc.sliver_pair(p);
            assert_eq!(hex(prim), pair["primary"]["data_hex"].as_str().unwrap(), "{id} primary {p}");
            assert_eq!(hex(sec), pair["secondary"]["data_hex"].as_str().unwrap(), "{id} secondary of pair {p}");
            assert_eq!(u(&pair["secondary"]["sliver_index"]) as usize, n - 1 - p);
            assert_eq!(hex(&enc.primary_sliver_bcs(p)), pair["primary"]["bcs_hex"].as_str().unwrap());
            assert_eq!(hex(&enc.secondary_sliver_bcs(n - 1 - p)), pair["secondary"]["bcs_hex"].as_str().unwrap());
            let h = &enc.metadata.pair_hashes[p];
            assert_eq!(hex(&h.primary), pair["primary_hash_hex"].as_str().unwrap(), "{id} primary hash {p}");
            assert_eq!(hex(&h.secondary), pair["secondary_hash_hex"].as_str().unwrap(), "{id} secondary hash {p}");
        }
        check_digests(v, &enc);
    }
}

#[test]
fn slivers_n4() {
    sliver_file("slivers_n4.json");
}

#[test]
fn slivers_n7() {
    sliver_file("slivers_n7.json");
}

#[test]
fn slivers_n10() {
    sliver_file("slivers_n10.json");
}

#[test]
fn slivers_n100() {
    sliver_file("slivers_n100.json");
}
