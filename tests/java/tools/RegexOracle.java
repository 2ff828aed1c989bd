// What java.util.regex gives: one case per input line "base64(pattern) base64(text)", one output line
// per case "true|false <groups of matches()> | <spans of the find() loop>", values base64 or "-" for null.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.*;

public class RegexOracle {
    static String b64(String s) {
        return s == null ? "-" : Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    static String unb64(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ", -1);
            String pattern = unb64(f[0]), text = unb64(f[1]);
            StringBuilder sb = new StringBuilder();
            try {
                Pattern p = Pattern.compile(pattern);
                Matcher m = p.matcher(text);
                boolean ok = m.matches();
                sb.append(ok);
                if (ok) for (int g = 0; g <= m.groupCount(); g++) sb.append(' ').append(b64(m.group(g)));
                sb.append(" |");
                m = p.matcher(text);
                while (m.find()) sb.append(' ').append(m.start()).append(',').append(m.end());
            } catch (PatternSyntaxException e) {
                sb.setLength(0);
                sb.append("error");
            } catch (StackOverflowError e) {
                sb.setLength(0);
                sb.append("overflow");
            }
            out.println(sb);
        }
        out.flush();
    }
}
