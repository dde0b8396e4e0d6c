// Runs the documented statements through the PostgreSQL JDBC driver (what Metabase, Tableau and
// DBeaver use) and checks what Java receives.
//
//     java -cp DIR:/usr/share/java/postgresql.jar CheckJdbc STATEMENTS DBNAME
//
// STATEMENTS is the NUL-separated list of statements.py; the server is 127.0.0.1:$PGPORT as $PGUSER.
// Every column the server calls a number (column_kind.sql) must come out of getObject as Short,
// Integer, Long, Float, Double or BigDecimal (an array of those for an array column), never as a
// PGobject or a String, and its ResultSetMetaData class name must say so. Exits 1 on any failure.

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class CheckJdbc {
    static final Set<Class<?>> NUMBER_CLASSES = Set.of(
        Short.class, Integer.class, Long.class, Float.class, Double.class, BigDecimal.class);
    static final Set<String> NUMBER_CLASS_NAMES = Set.of(
        "java.lang.Short", "java.lang.Integer", "java.lang.Long", "java.lang.Float",
        "java.lang.Double", "java.math.BigDecimal");

    final List<String> failures = new ArrayList<>();
    final Map<String, String> kinds = new HashMap<>();
    PreparedStatement kindQuery;
    int checkedColumns = 0, checkedValues = 0;

    public static void main(String[] args) throws Exception {
        System.exit(new CheckJdbc().run(Path.of(args[0]), args[1]));
    }

    String kind(String typeName) throws SQLException {
        String k = kinds.get(typeName);
        if (k == null) {
            kindQuery.setString(1, typeName);
            try (ResultSet rs = kindQuery.executeQuery()) {
                rs.next();
                k = rs.getString(1);
            }
            kinds.put(typeName, k);
        }
        return k;
    }

    int run(Path statementsFile, String db) throws Exception {
        String all = new String(Files.readAllBytes(statementsFile), StandardCharsets.UTF_8);
        List<String> statements = new ArrayList<>();
        for (String s : all.split("\0")) if (!s.isEmpty()) statements.add(s);
        String kindSql = Files.readString(Path.of(System.getenv("SIMHASH_CLIENTS_DIR"), "column_kind.sql"))
            .replace(":type", "?");

        String url = "jdbc:postgresql://127.0.0.1:" + System.getenv("PGPORT") + "/" + db;
        String user = System.getenv().getOrDefault("PGUSER", "postgres");
        try (Connection c = DriverManager.getConnection(url, user, "")) {
            c.setAutoCommit(true);
            kindQuery = c.prepareStatement(kindSql);
            int number = 0;
            for (String sql : statements) {
                number++;
                String flat = String.join(" ", sql.trim().split("\\s+"));
                String label = "statement " + number + ": " + flat.substring(0, Math.min(100, flat.length()));
                try (Statement st = c.createStatement()) {
                    st.setEscapeProcessing(false);
                    boolean isResult = st.execute(sql);
                    while (true) {
                        if (isResult) {
                            try (ResultSet rs = st.getResultSet()) { check(label, rs); }
                        } else if (st.getUpdateCount() == -1) {
                            break;
                        }
                        isResult = st.getMoreResults();
                    }
                }
            }
            System.out.println("driver " + c.getMetaData().getDriverVersion() + ": " + statements.size()
                + " statements, " + checkedColumns + " numeric result columns, " + checkedValues
                + " values checked, " + failures.size() + " failures");
        }
        for (String f : failures) System.out.println("FAILED: " + f);
        if (checkedColumns == 0) {
            System.out.println("FAILED: no numeric column was checked (is the statement list empty?)");
            return 1;
        }
        return failures.isEmpty() ? 0 : 1;
    }

    void check(String label, ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        String[] k = new String[n + 1];
        boolean[] failed = new boolean[n + 1];
        for (int i = 1; i <= n; i++) {
            k[i] = kind(md.getColumnTypeName(i));
            if (k[i].equals("other")) continue;
            checkedColumns++;
            String className = md.getColumnClassName(i);
            String expected = k[i].equals("number") ? "a java.lang.Number class" : "java.sql.Array";
            boolean ok = k[i].equals("number") ? NUMBER_CLASS_NAMES.contains(className)
                                               : className.equals("java.sql.Array");
            if (!ok) {
                failures.add(label + "\n    column '" + md.getColumnLabel(i) + "' (" + md.getColumnTypeName(i)
                    + "): metadata class " + className + ", expected " + expected);
            }
        }
        while (rs.next()) {
            for (int i = 1; i <= n; i++) {
                if (k[i].equals("other") || failed[i]) continue;
                Object v = rs.getObject(i);
                if (v == null) continue;
                checkedValues++;
                Object bad = null;
                if (k[i].equals("number")) {
                    if (!NUMBER_CLASSES.contains(v.getClass())) bad = v;
                } else if (v instanceof Array) {
                    for (Object e : (Object[]) ((Array) v).getArray())
                        if (e != null && !NUMBER_CLASSES.contains(e.getClass())) { bad = e; break; }
                } else {
                    bad = v;
                }
                if (bad != null) {
                    failures.add(label + "\n    column '" + md.getColumnLabel(i) + "' (" + md.getColumnTypeName(i)
                        + "): " + bad.getClass().getName() + " '" + bad + "', expected a number");
                    failed[i] = true;
                }
            }
        }
    }
}
