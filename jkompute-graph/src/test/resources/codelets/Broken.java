import io.jkompute.graph.CodeletAdapter;

public class Broken extends CodeletAdapter {
    @Override
    public void tick() {
        int x = "not a number";
    }
}
