//! Raw deflate (RFC 1951, the `s=` of a link) through the browser's own `CompressionStream` and
//! `DecompressionStream` ("deflate-raw"), rather than a deflate library compiled into the
//! page: miniz_oxide was 15 KB of the page's gzip download (issue 49). Links made before
//! (miniz_oxide, level 9) are the same format and keep opening; a link made now may differ in
//! its bytes from one made before for the same scenario, never in what it opens.

use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ReadableStream, ReadableStreamDefaultReader, ReadableWritablePair};

// The two streams, declared here: web-sys has them only behind its unstable-API flag, which
// every build of the crate would then need.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(extends = js_sys::Object)]
    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;

    #[wasm_bindgen(extends = js_sys::Object)]
    type DecompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<DecompressionStream, JsValue>;
}

const FORMAT: &str = "deflate-raw";

/// `bytes`, deflated.
pub async fn deflate(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let stream = CompressionStream::new(FORMAT).map_err(message)?;
    let pair: ReadableWritablePair = stream.unchecked_into();
    read_all(through(bytes, &pair)?, usize::MAX).await
}

/// `packed`, inflated: an error if it is not raw deflate, or (stopping there, so a small
/// link that inflates to gigabytes costs nothing) once it passes `limit` bytes.
pub async fn inflate(packed: &[u8], limit: usize) -> Result<Vec<u8>, Inflate> {
    let stream = DecompressionStream::new(FORMAT).map_err(|e| Inflate::Damaged(message(e)))?;
    let pair: ReadableWritablePair = stream.unchecked_into();
    let readable = through(packed, &pair).map_err(Inflate::Damaged)?;
    match read_all(readable, limit).await {
        Ok(bytes) => Ok(bytes),
        Err(why) if why == OVER => Err(Inflate::OverLimit),
        Err(why) => Err(Inflate::Damaged(why)),
    }
}

/// Why a link's payload did not inflate.
#[derive(Debug, PartialEq)]
pub enum Inflate {
    Damaged(String),
    OverLimit,
}

const OVER: &str = "over the limit";

fn through(bytes: &[u8], pair: &ReadableWritablePair) -> Result<ReadableStream, String> {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let blob = Blob::new_with_u8_array_sequence(&parts).map_err(message)?;
    Ok(blob.stream().pipe_through(pair))
}

/// Reads `stream` to its end, or stops (cancelling it) once past `limit` bytes.
async fn read_all(stream: ReadableStream, limit: usize) -> Result<Vec<u8>, String> {
    let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
    let mut out = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(message)?;
        let done = Reflect::get(&chunk, &"done".into()).map_err(message)?;
        if done.as_bool().unwrap_or(true) {
            return Ok(out);
        }
        let value = Reflect::get(&chunk, &"value".into()).map_err(message)?;
        let bytes: Uint8Array = value.dyn_into().map_err(message)?;
        if out.len() + bytes.length() as usize > limit {
            let _ = reader.cancel();
            return Err(OVER.to_string());
        }
        let start = out.len();
        out.resize(start + bytes.length() as usize, 0);
        bytes.copy_to(&mut out[start..]);
    }
}

fn message(e: JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser could not run it".to_string())
}
