-- Tables of one corpus (psql variable tag). Page ids are line numbers - 1 of pages.tsv, as in the
-- corpus's gt_pairs_ge05_ids.tsv (id_a < id_b, exact shingle intersection and union sizes).
DROP TABLE IF EXISTS acc_pages_:tag, acc_gt_:tag, acc_sh_:tag;
CREATE TABLE acc_pages_:tag (id integer GENERATED ALWAYS AS IDENTITY (MINVALUE 0 START 0) PRIMARY KEY,
                             url text, html text, text text);
CREATE TABLE acc_gt_:tag (id_a integer, id_b integer, inter integer, uni integer,
                          PRIMARY KEY (id_a, id_b));
CREATE TABLE acc_sh_:tag (pipeline text, id integer, sh simhash);
