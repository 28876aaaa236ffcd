module io.jkompute.cuda {
    requires io.jkompute.core;
    requires org.slf4j;
}
