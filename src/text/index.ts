export { cover, FILE_START, type LineTable, lineTable, type Point, type Range } from "./range.ts";
export { withArticle } from "./article.ts";
