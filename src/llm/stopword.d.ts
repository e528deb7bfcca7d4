// The `stopword` package ships no type declarations; this covers the few lists we read.
declare module 'stopword' {
  export const eng: readonly string[];
  export const zho: readonly string[];
  export const jpn: readonly string[];
  export const kor: readonly string[];
}
