-- Loads the pages listed by demo/fetch_pages.sh into the table "pages" (as a superuser: the
-- server reads the list and the files itself, so they must be readable by its OS user).
-- psql -v pages_list=FILE -f demo/load_pages.sql   (FILE: package<TAB>path<TAB>file per line)
\set ON_ERROR_STOP on
SET client_min_messages = warning;
DROP TABLE IF EXISTS pages;
RESET client_min_messages;
CREATE TABLE pages (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    package text NOT NULL,
    url     text NOT NULL UNIQUE,
    html    text NOT NULL
);
CREATE TEMP TABLE page_files (package text, path text, file text);
COPY page_files FROM :'pages_list';

-- The server reads the files itself; one page that is not valid UTF-8 is skipped, not fatal.
DO $$
DECLARE
    f record;
    loaded int := 0;
    skipped int := 0;
    total int := (SELECT count(*) FROM page_files);
BEGIN
    FOR f IN SELECT * FROM page_files ORDER BY package, path LOOP
        BEGIN
            INSERT INTO pages (package, url, html)
            VALUES (f.package, 'deb://' || f.package || f.path,
                    convert_from(pg_read_binary_file(f.file), 'UTF8'));
            loaded := loaded + 1;
        EXCEPTION WHEN character_not_in_repertoire OR untranslatable_character THEN
            skipped := skipped + 1;
        END;
        IF (loaded + skipped) % 1000 = 0 THEN
            RAISE NOTICE 'loaded % of % pages', loaded + skipped, total;
        END IF;
    END LOOP;
    RAISE NOTICE 'loaded % pages (% skipped: not UTF-8)', loaded, skipped;
END $$;
ANALYZE pages;
