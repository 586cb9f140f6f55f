/** `.wat` fixtures, imported as text (esbuild's text loader: playground/build.ts). */
declare module '*.wat' {
  const text: string;
  export default text;
}
